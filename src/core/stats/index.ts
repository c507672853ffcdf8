/**
 * The statistics core: SciPy-compatible tests (Mann-Whitney U, two-sample KS, Kendall's tau-b),
 * paired tests (Wilcoxon signed-rank, McNemar exact, bootstrap intervals), distributions (normal,
 * Kolmogorov), agreement measures and sparse logistic regression.
 */
export { erf, erfc, erfcx, ndtr, roundHalfEven, gcd } from './special';
export { rankAverage, argsort } from './rank';
export { mannWhitneyU, mwuNullPmf, binomial } from './mannwhitney';
export type { MannWhitneyResult, MwuMethod } from './mannwhitney';
export { ks2samp, ksStatistic, probOutsideSquare, probOutsideInside } from './ks2samp';
export type { KsResult, KsMethod } from './ks2samp';
export { kstwoSf, smirnov } from './kolmogorov';
export { kendallTau, kendallExactP } from './kendall';
export type { KendallResult } from './kendall';
export { cohenKappa, klDivergence, relEntr, symmetricKl } from './agreement';
export { fitLogistic, predictProba, sigmoid, csrFromRows, csrFromDense, csrSelectRows } from './logreg';
export type { CsrMatrix, LogisticModel, LogisticOptions } from './logreg';
export { mean, stdev, quantile, summarize, sharedHistogram } from './descriptive';
export type { Summary, Histogram } from './descriptive';
export { wilcoxonSignedRank, wilcoxonNullPmf, mcnemarExact, binomialPmf, bootstrapMeanInterval } from './paired';
export type { WilcoxonResult, WilcoxonMethod, McNemarResult, BootstrapInterval } from './paired';
