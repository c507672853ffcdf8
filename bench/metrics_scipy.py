"""The Python side of bench/metrics.ts: the same PLSA tests and HLS cross-validation, timed
inside one Python process (no start-up, imports or JSON loading in the timings).

Usage: python3 bench/metrics_scipy.py PAYLOAD.json   (written by bench/metrics.ts)
Prints one JSON line with times and results.

PLSA: scipy.stats.mannwhitneyu and scipy.stats.ks_2samp (defaults) on the identical feature
columns, reference first. HLS: the identical folds; n-grams of user utterances tokenised like
src/core/metrics/text.ts; per-fold vocabulary with min_df; L2 logistic regression (C, free
intercept) by scikit-learn (CountVectorizer + LogisticRegression, lbfgs) when it is installed,
otherwise SciPy sparse matrices + scipy.optimize.minimize(L-BFGS-B) on the same objective.
"""
import json
import platform
import re
import sys
import time

import numpy as np
import scipy
from scipy import optimize, sparse, stats

try:
    import sklearn
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
except Exception:  # scikit-learn is optional
    sklearn = None

TOKEN = re.compile(r"[^\W_]+(?:['\u2019][^\W\d_]+)*|[?!$]")


def timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    value = fn()
    return value, (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000


def doc_ngrams(utterances):
    out = []
    for u in utterances:
        toks = [t.replace('\u2019', "'") for t in TOKEN.findall(u.lower())]
        out.extend(toks)
        out.extend(a + ' ' + b for a, b in zip(toks, toks[1:]))
    return out


def fit_lbfgs(X, y, C):
    """Minimise sum(logloss) + ||w||^2 / (2C), intercept (last entry) unpenalised."""
    n, d = X.shape
    s = 2.0 * y - 1.0

    def fun(theta):
        w, b = theta[:d], theta[d]
        z = X @ w + b
        loss = np.logaddexp(0.0, -s * z).sum() + 0.5 / C * (w @ w)
        p = 1.0 / (1.0 + np.exp(-z))
        r = p - y
        grad = np.empty(d + 1)
        grad[:d] = X.T @ r + w / C
        grad[d] = r.sum()
        return loss, grad

    res = optimize.minimize(fun, np.zeros(d + 1), jac=True, method='L-BFGS-B',
                            options={'maxiter': 5000, 'gtol': 1e-6})
    return res.x[:d], res.x[d]


def hls_cv(docs, labels, folds, min_df, C):
    labels = np.asarray(labels, dtype=float)
    folds = np.asarray(folds)
    k = int(folds.max()) + 1
    pred = np.empty(len(docs))
    if sklearn is not None:
        for f in range(k):
            tr, te = np.where(folds != f)[0], np.where(folds == f)[0]
            vec = CountVectorizer(analyzer=doc_ngrams, min_df=min_df)
            Xtr = vec.fit_transform([docs[i] for i in tr])
            Xte = vec.transform([docs[i] for i in te])
            model = LogisticRegression(C=C, max_iter=5000).fit(Xtr, labels[tr])
            pred[te] = model.predict_proba(Xte)[:, 1]
    else:
        grams = [doc_ngrams(d) for d in docs]
        for f in range(k):
            tr, te = np.where(folds != f)[0], np.where(folds == f)[0]
            df = {}
            for i in tr:
                for g in set(grams[i]):
                    df[g] = df.get(g, 0) + 1
            vocab = {g: j for j, g in enumerate(sorted(g for g, c in df.items() if c >= min_df))}

            def matrix(rows):
                data, ind, ptr = [], [], [0]
                for i in rows:
                    counts = {}
                    for g in grams[i]:
                        j = vocab.get(g)
                        if j is not None:
                            counts[j] = counts.get(j, 0) + 1
                    ind.extend(counts.keys())
                    data.extend(counts.values())
                    ptr.append(len(ind))
                return sparse.csr_matrix((np.asarray(data, float), np.asarray(ind, np.int32), np.asarray(ptr, np.int64)),
                                         shape=(len(rows), len(vocab)))
            w, b = fit_lbfgs(matrix(tr), labels[tr], C)
            z = matrix(te) @ w + b
            pred[te] = 1.0 / (1.0 + np.exp(-z))
    return float(np.mean((pred >= 0.5) == (labels == 1)))


def main():
    payload = json.load(open(sys.argv[1]))
    feats = payload['features']
    ref = {f: np.asarray(v, dtype=float) for f, v in payload['reference'].items()}
    cands = [{f: np.asarray(v, dtype=float) for f, v in c.items()} for c in payload['candidates']]

    def plsa():
        out = []
        for c in cands:
            for f in feats:
                m = stats.mannwhitneyu(ref[f], c[f])
                k = stats.ks_2samp(ref[f], c[f])
                out.append({'mwu_u': float(m.statistic), 'mwu_p': float(m.pvalue),
                            'ks_statistic': float(k.statistic), 'ks_p': float(k.pvalue)})
        return out

    plsa_ms, plsa_cpu, results = [], [], None
    for _ in range(int(payload['reps'])):
        results, ms, cpu = timed(plsa)
        plsa_ms.append(ms)
        plsa_cpu.append(cpu)

    h = payload['hls']
    hls_ms, hls_cpu, acc = [], [], None
    for _ in range(int(payload['hls_reps'])):
        acc, ms, cpu = timed(lambda: hls_cv(h['docs'], h['labels'], h['folds'], h['min_df'], h['C']))
        hls_ms.append(ms)
        hls_cpu.append(cpu)

    print(json.dumps({
        'python': 'Python ' + platform.python_version(),
        'scipy': scipy.__version__,
        'sklearn': sklearn.__version__ if sklearn is not None else None,
        'hls_engine': ('scikit-learn CountVectorizer + LogisticRegression (lbfgs)' if sklearn is not None
                       else 'SciPy sparse + L-BFGS-B (scikit-learn not installed)'),
        'plsa_ms': plsa_ms, 'plsa_cpu_ms': plsa_cpu, 'hls_ms': hls_ms, 'hls_cpu_ms': hls_cpu,
        'plsa': results, 'hls_accuracy': acc,
    }))


if __name__ == '__main__':
    main()
