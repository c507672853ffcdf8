/** `simlens simulate`: run simulated users against a recommender, or fork a recorded conversation. */
import { BUILTIN_CATALOG_NOTE } from '../../core/metrics/domain';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { importFile } from '../../core/importers/index';
import type { Conversation, RunManifest } from '../../core/model';
import {
  OrderedWriter,
  SHARD_COUNT_VARIABLE,
  SIMLENS_VERSION,
  forkConversation,
  parseSimulationConfig,
  partFileName,
  resolveShard,
  runIdFor,
  runSimulation,
  runStopOf,
  writeManifest,
  type SimulationConfigInput,
} from '../../core/run/index';
import { estimateTransitions, loadActAliases } from '../../core/sim/users/index';
import { defaultActAliases } from '../../core/taxonomy/acts';
import { formatFlags, parseArgs } from '../args';
import { UsageError, type CliCommand, type CliIo } from '../types';
import { resolvePath } from '../util';
import { LLM_FLAGS, LLM_RUN_FLAGS, llmServicesFromFlags, withLlmRunConfig } from '../llmOptions';
import { LLM_USER_NAMES, stopsRun } from '../../core/run/llm';
import { isExternalUserSpec } from '../../core/sim/users/external/simulator';
import { escapeControl } from '../../core/text/terminal';
import { DEFAULT_MAX_CONSECUTIVE_FAILURES, FailureTally, type FailureCounts } from '../../core/failures';
import { RunStop } from '../../core/run/stop';

const FLAGS = {
  user: {
    type: 'string',
    valueName: 'agenda|target-free|llm-…|exec:CMD|URL',
    description:
      `simulated user (default agenda; LLM users: ${LLM_USER_NAMES.join(', ')}; your own simulator: exec:"python3 ` +
      `my_sim.py" or http://HOST:PORT/PATH, see docs/protocol.md)`,
  },
  interaction: {
    type: 'string',
    valueName: 'cir6|qrfa',
    description: 'interaction model of the agenda user (default cir6)',
  },
  preferences: {
    type: 'string',
    valueName: 'single|pkg',
    description: 'preference model of the agenda user (default pkg)',
  },
  agent: {
    type: 'string',
    valueName: 'AGENT',
    description: 'local-good, local-bad, or the URL of your recommender (default local-good)',
  },
  n: { type: 'number', description: 'number of conversations' },
  seed: { type: 'string', valueName: 'S', description: 'seed (default 1); same seed and options, same bytes' },
  out: { type: 'string', short: 'o', valueName: 'FILE', description: 'output JSONL (a manifest is written beside it)' },
  catalog: {
    type: 'string',
    valueName: 'FILE',
    description: 'item catalog JSONL (default: the synthetic apparel catalog)',
  },
  'catalog-size': { type: 'number', description: 'size of the synthetic catalog (default 3000)' },
  'catalog-seed': { type: 'string', valueName: 'S', description: 'seed of the synthetic catalog' },
  corpus: {
    type: 'string',
    valueName: 'FILE',
    description: 'annotated corpus to estimate transitions and train the NLU from (any importable format)',
  },
  transitions: {
    type: 'string',
    valueName: 'FILE',
    description: 'transition counts JSON (simlens-transitions/1) instead of the default model',
  },
  'save-model': {
    type: 'string',
    valueName: 'FILE',
    description: 'write the transition counts estimated from --corpus (alone: save and stop)',
  },
  answers: { type: 'string', valueName: 'FILE', description: 'appropriate-answer mapping JSON (default: built in)' },
  aliases: { type: 'string', valueName: 'FILE', description: 'corpus label aliases JSON (default: built in)' },
  diagram: { type: 'string', valueName: 'FILE', description: 'allowed CIR6 transitions JSON (default: built in)' },
  templates: { type: 'string', valueName: 'FILE', description: 'NLG templates JSON (default: built in)' },
  alpha: { type: 'number', description: 'additive smoothing of transition probabilities (default 0.5)' },
  meta: {
    type: 'string',
    valueName: 'tol|prob',
    description: 'wrap the user in MetaSimTol or MetaSimProb (alternative targets)',
  },
  tolerance: { type: 'number', description: 'meta: turns before the user may switch target (default 2)' },
  'p-switch': { type: 'number', description: 'meta prob: switch probability after a perceived loss (default 0.75)' },
  relevance: {
    type: 'string',
    valueName: 'FILE',
    description: 'meta: relevance judgments {target: [alternatives]} (default: derived by similarity)',
  },
  'max-turns': { type: 'number', description: 'user turns per conversation (default 20, 10 with --meta)' },
  patience: { type: 'number', description: 'inappropriate answers before the agenda user gives up (default 3)' },
  'early-quit': {
    type: 'number',
    description: 'agenda user: probability of leaving before any recommendation was shown (default 0)',
  },
  'typo-rate': { type: 'number', description: 'probability of a typo per user utterance (default 0.05)' },
  task: {
    type: 'string',
    valueName: 'CATEGORY',
    description: 'fix the shopping task (default: a random catalog category per conversation)',
  },
  'timeout-ms': { type: 'number', description: 'HTTP agent: timeout per turn' },
  'simulator-timeout-ms': {
    type: 'number',
    description: 'external simulator (exec:/http): timeout per request (default 10000)',
  },
  concurrency: {
    type: 'number',
    description: 'conversations in flight at once (default 1; output is the same for any value)',
  },
  'max-consecutive-failures': {
    type: 'number',
    description: `stop the run after N failed conversations in a row (default ${DEFAULT_MAX_CONSECUTIVE_FAILURES}; 0 = never)`,
  },
  shard: {
    type: 'string',
    valueName: 'I/K|auto|none',
    description:
      'run only conversations i with i mod K = I (0-based); auto: from a Slurm array or Kubernetes indexed job (the ' +
      'default when their variables are set), writing OUT.part-I-of-K; none: ignore them. Join parts with simlens merge',
  },
  'shard-count': {
    type: 'number',
    valueName: 'K',
    description: `with --shard auto: the number of shards (Kubernetes: the Job's completions; default ${SHARD_COUNT_VARIABLE}, or the Slurm array's size)`,
  },
  resume: {
    type: 'boolean',
    description: 'continue an interrupted run: skip conversations already in --out (failed ones included)',
  },
  'retry-failed': { type: 'boolean', description: 'with --resume: run the failed conversations in --out again' },
  force: { type: 'boolean', description: 'replace an existing --out' },
  fork: {
    type: 'string',
    valueName: 'FILE:ID:TURN',
    description: 'simulate --n continuations of conversation ID after turn TURN (0-based)',
  },
  'fork-seed': { type: 'string', valueName: 'S', description: 'seed of the fork randomness (default: the run seed)' },
  quiet: { type: 'boolean', short: 'q', description: 'no progress lines' },
  ...LLM_RUN_FLAGS,
  ...LLM_FLAGS,
} as const;

type Flags = ReturnType<typeof parseArgs<typeof FLAGS>>['flags'];

function seedValue(text: string): string | number {
  return /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : text;
}

function oneOf(name: string, value: string | undefined, allowed: readonly string[]): string | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  return value;
}

/** The configuration keys given on the command line (unset flags stay absent, so a manifest can fill them). */
function configFromFlags(f: Flags): Partial<SimulationConfigInput> {
  const c: Record<string, unknown> = {
    user:
      f.user !== undefined && isExternalUserSpec(f.user)
        ? f.user
        : oneOf('user', f.user, ['agenda', 'target-free', ...LLM_USER_NAMES]),
    interaction: oneOf('interaction', f.interaction, ['cir6', 'qrfa']),
    preferences: oneOf('preferences', f.preferences, ['single', 'pkg']),
    agent: f.agent,
    n: f.n,
    seed: f.seed !== undefined ? seedValue(f.seed) : undefined,
    catalog: f.catalog,
    catalog_size: f['catalog-size'],
    catalog_seed: f['catalog-seed'] !== undefined ? seedValue(f['catalog-seed']) : undefined,
    corpus: f.corpus,
    transitions: f.transitions,
    answers: f.answers,
    aliases: f.aliases,
    diagram: f.diagram,
    templates: f.templates,
    alpha: f.alpha,
    meta: oneOf('meta', f.meta, ['tol', 'prob']),
    tolerance: f.tolerance,
    p_switch: f['p-switch'],
    relevance: f.relevance,
    max_turns: f['max-turns'],
    patience: f.patience,
    early_quit: f['early-quit'],
    typo_rate: f['typo-rate'],
    task: f.task,
    timeout_ms: f['timeout-ms'],
    simulator_timeout_ms: f['simulator-timeout-ms'],
  };
  for (const k of Object.keys(c)) if (c[k] === undefined) delete c[k];
  return c as Partial<SimulationConfigInput>;
}

/** Splits FILE:ID:TURN where FILE and ID may themselves contain ":" (the longest existing file prefix wins). */
export function parseForkSpec(spec: string, io: CliIo): { file: string; id: string; turn: number } {
  const last = spec.lastIndexOf(':');
  if (last <= 0) throw new UsageError(`--fork must look like FILE:ID:TURN, got "${spec}"`);
  const turnText = spec.slice(last + 1);
  if (!/^\d+$/.test(turnText)) throw new UsageError(`--fork: TURN must be a turn number (0-based), got "${turnText}"`);
  const head = spec.slice(0, last);
  const candidates: { file: string; id: string }[] = [];
  for (let i = head.indexOf(':'); i > 0; i = head.indexOf(':', i + 1))
    candidates.push({ file: head.slice(0, i), id: head.slice(i + 1) });
  const found = candidates.reverse().find((c) => {
    const p = resolvePath(io, c.file);
    return existsSync(p) && statSync(p).isFile();
  });
  if (!found) throw new UsageError(`--fork: no file found in "${head}" (expected FILE:ID:TURN)`);
  if (!found.id) throw new UsageError('--fork: the conversation ID is empty');
  return { file: found.file, id: found.id, turn: Number(turnText) };
}

async function saveModel(f: Flags, io: CliIo): Promise<void> {
  if (!f.corpus) throw new UsageError('--save-model needs --corpus');
  const imported = await importFile(resolvePath(io, f.corpus));
  const aliases = f.aliases ? loadActAliases(resolvePath(io, f.aliases)) : defaultActAliases();
  const counts = estimateTransitions(imported.conversations, { aliases, source: basename(f.corpus) });
  if (!counts.dialogues) throw new Error(`${f.corpus}: no conversation has user dialogue acts the simulator can read`);
  writeFileSync(resolvePath(io, f['save-model']!), JSON.stringify(counts, null, 2) + '\n');
  io.stderr(`wrote ${f['save-model']}: transition counts from ${counts.dialogues} dialogues of ${f.corpus}\n`);
}

function progressPrinter(
  io: CliIo,
  quiet: boolean,
): (p: { finished: number; planned: number; failed: number; rate: number }) => void {
  let last = 0;
  return (p) => {
    if (quiet) return;
    const now = Date.now();
    if (now - last < 2000 && p.finished < p.planned) return;
    last = now;
    io.stderr(`  ${p.finished}/${p.planned} conversations, ${p.failed} failed, ${p.rate.toFixed(1)}/s\n`);
  };
}

/** How many failure messages of one reason are printed before the rest are only counted. */
const FAILURES_SHOWN_PER_REASON = 3;

/**
 * Prints why a conversation failed (the message names the simulator or recommender, the
 * conversation and the turn), escaped, for the first few of each reason; the summary counts them all.
 */
function failurePrinter(io: CliIo): (c: Conversation) => void {
  const shown = new Map<string, number>();
  return (c) => {
    const error = c.metadata?.['error'];
    if (typeof error !== 'string') return;
    const reason = String(c.metadata?.['error_kind'] ?? 'failure');
    const n = (shown.get(reason) ?? 0) + 1;
    shown.set(reason, n);
    if (n <= FAILURES_SHOWN_PER_REASON) io.stderr(`failed (${reason}): ${escapeControl(error)}\n`);
    else if (n === FAILURES_SHOWN_PER_REASON + 1)
      io.stderr(
        `further ${reason} failures are counted in the summary (each one's message is its conversation's metadata.error)\n`,
      );
  };
}

async function runFork(f: Flags, io: CliIo, command: string): Promise<number> {
  if (f.n === undefined) throw new UsageError('--fork needs --n (the number of continuations)');
  if (!f.out) throw new UsageError('--fork needs --out');
  if (f.shard || f.resume) throw new UsageError('--fork cannot be combined with --shard or --resume');
  const spec = parseForkSpec(f.fork!, io);
  const out = resolvePath(io, f.out);
  if (existsSync(out) && statSync(out).size > 0 && !f.force)
    throw new UsageError(`${f.out} already exists; use --force to replace it`);
  const overrides = configFromFlags(f);
  delete overrides.n;
  const started = new Date();
  const result = await forkConversation({
    file: spec.file,
    id: spec.id,
    turn: spec.turn,
    n: f.n,
    seed: f['fork-seed'] !== undefined ? seedValue(f['fork-seed']) : undefined,
    config: overrides,
    cwd: io.cwd,
  });
  writeFileSync(out, '');
  const writer = new OrderedWriter(
    out,
    result.conversations.map((_, i) => i),
  );
  result.conversations.forEach((c, i) => writer.put(i, JSON.stringify(c)));
  writer.close();
  const config = result.config as unknown as Record<string, unknown>;
  const manifest: RunManifest = {
    run_id: runIdFor({ ...config, fork: spec }),
    created: started.toISOString(),
    simlens_version: SIMLENS_VERSION,
    node_version: process.version,
    command,
    config,
    seed: f['fork-seed'] !== undefined ? seedValue(f['fork-seed']) : result.config.seed,
    counts: { planned: f.n, finished: result.conversations.length, ...result.failures },
    timings: {
      started: started.toISOString(),
      finished: new Date().toISOString(),
      wall_ms: Date.now() - started.getTime(),
    },
    status: 'finished',
  };
  Object.assign(manifest as Record<string, unknown>, { fork: { ...spec, methods: result.methods }, output: out });
  writeManifest(out, manifest);
  const methods = [...new Set(result.methods)].join(', ');
  io.stdout(
    `${result.conversations.length} continuations of ${spec.id} after turn ${spec.turn} written to ${f.out} (state ` +
      `by ${methods}), ${new FailureTally(0, result.failures).describe()}\n`,
  );
  return result.failed ? 1 : 0;
}

/**
 * Where the run writes and whether it resumes: OUT, or in a cluster task (Slurm, Kubernetes) the
 * task's own part file, named by its index, which a rerun of the task resumes. Says so on stdout.
 */
function outputTarget(
  f: Flags,
  outFlag: string,
  io: CliIo,
): { resolved: ReturnType<typeof resolveShard>; out: string; resume: boolean | undefined } {
  let resolved;
  try {
    resolved = resolveShard(f.shard, io.env, f['shard-count']);
  } catch (err) {
    throw new UsageError(`--shard: ${(err as Error).message}`);
  }
  let out = outFlag;
  let resume = f.resume;
  if (resolved && resolved.source !== 'option') {
    out = partFileName(outFlag, resolved.shard);
    if (!f.force && existsSync(resolvePath(io, out)) && statSync(resolvePath(io, out)).size > 0) resume = true;
    io.stdout(`${resolved.description} -> ${out}${resume ? ' (resuming the part already there)' : ''}\n`);
  }
  return { resolved, out, resume };
}

/** Prints a finished, stopped or cancelled run's summary line (and what to do next); the exit code. */
function reportRun(manifest: RunManifest, out: string, io: CliIo): number {
  const c = manifest.counts;
  const extra = manifest as Record<string, unknown>;
  const failures = new FailureTally(0, {
    failed: c.failed,
    agent_errors: Number(c.agent_errors ?? 0),
    by_reason: (c.by_reason ?? {}) as FailureCounts['by_reason'],
  });
  io.stdout(
    `${manifest.status}: ${c.finished}/${c.planned} conversations in ${out}` +
      (`${c.resumed ? ` (${c.resumed} from before)` : ''}, ${failures.describe()}, ${extra['rate_per_s']}/s, user ` +
        `${String(extra['user'])} vs ${agentLabel(String(extra['agent']))}\n`),
  );
  if (manifest.status === 'stopped')
    io.stderr(
      `simlens simulate: ${String(extra['stop_reason'])}\nfix the cause, then continue with the same options and --resume\n`,
    );
  if (manifest.status === 'cancelled') io.stderr(`cancelled: continue with the same options and --resume\n`);
  return manifest.status === 'finished' && c.failed === 0 ? 0 : 1;
}

/**
 * The agent as the researcher named it. Runs record an HTTP agent as "http:" + its URL (the
 * recorded name, which createAgent also accepts); on the terminal "http:http://host" reads as a
 * typo, so the URL is shown alone.
 */
export function agentLabel(name: string): string {
  return name.replace(/^http:(?=https?:\/\/)/i, '');
}

export const simulateCommand: CliCommand = {
  name: 'simulate',
  summary: 'simulate users (agenda-based, target-free, meta) against a recommender; fork conversations',
  help: `Usage: simlens simulate [options] --n N --out FILE
       simlens simulate --fork FILE:ID:TURN --n K --out FILE [options]
       simlens simulate --corpus FILE --save-model MODEL.json

Runs N simulated conversations and writes them as canonical SimLens JSONL, one
conversation per line, each with the simulator's trace on every turn (agenda, pull/push, goal,
preferences, NLU, acts, target, patience). A manifest (configuration, seed, versions, inputs,
counts, timings, status) is written to FILE.manifest.json.

The same options and seed give byte-identical output, whatever --concurrency or --shard (timings
such as agent latency go to the manifest only, never into the conversations).
A conversation that fails ends on the failing turn and is recorded with metadata.error and
metadata.error_kind: an agent failure (HTTP error status, timeout, unreachable, malformed answer,
LLM failure) has outcome agent_error and never costs the user patience. The summary line and the
manifest count failures per reason; --max-consecutive-failures N stops the run after N failures in
a row (manifest status "stopped", stop_reason) when that leaves planned conversations unrun; a run
whose planned conversations all finished is "finished", its failures counted. An LLM endpoint that
still fails after its retries stops the run too ("stopped", stop_reason names the endpoint's error;
a spent --budget-* is "cancelled"). The manifest's counts are refreshed about once a second while
the run goes on; after a kill the output file is the truth, and --resume recounts from it.
An LLM request the endpoint rejects for what it carries (HTTP 400, 413, 422, e.g. past the
context length) and answers that stay unusable after the repairs (refusals, wrong format, cut at
the token limit) fail only their conversation (user_llm, agent_llm); the run goes on.
Ctrl-C (or SIGTERM) stops scheduling and retrying: conversations in flight are finished and
written, the manifest says "cancelled"; a second Ctrl-C aborts them at once (they are not
written). --resume continues; it keeps failed conversations unless --retry-failed.
LLM requests in flight per role default to --concurrency (--llm-concurrency overrides).

Cluster runs: in a Slurm array job (SLURM_ARRAY_TASK_ID, with --array=0-K-1) or a Kubernetes
Indexed Job (JOB_COMPLETION_INDEX, with SIMLENS_SHARD_COUNT set to the completions) each task
runs its shard without any --shard option (the first output line says which) and writes
OUT.part-I-of-K.jsonl, named by its index, so tasks never collide; rerunning a task resumes its
part. --shard none ignores those variables. Then \`simlens merge OUT\` joins the parts. See
docs/cluster/README.md.

Users: agenda (Zhang & Balog 2020; --interaction cir6|qrfa, --preferences single|pkg),
target-free (PEPPER: general and reflected preferences, preference coverage per turn).
--meta tol|prob wraps either in a Fashion-AlterEval meta-simulator with alternative targets.
LLM users (any OpenAI-compatible endpoint; key from SIMLENS_API_KEY or OPENAI_API_KEY):
llm-prompted, llm-icl (--icl-pool FILE [--icl-condition good]), llm-sft (a fine-tuned
--user-model), llm-target-free; LLM agents: llm-good, llm-bad. See the README's LLM section.

Options:
${formatFlags(FLAGS)}

Exit codes: 0 done, 1 some conversations failed (see metadata.error) or the run was cancelled
or stopped, 2 usage or I/O error.

Domain: ${BUILTIN_CATALOG_NOTE}

Examples:
  simlens simulate --agent local-good --n 100 --seed 7 --out good.sim.jsonl
  simlens simulate --interaction qrfa --preferences single --agent local-bad --n 100 --out bad.sim.jsonl
  simlens simulate --corpus test/fixtures/datasets/usersimcrs-moviebot/annotated_dialogues.json --n 50 --out mb.sim.jsonl
  simlens simulate --user target-free --agent local-good --n 50 --out pepper.sim.jsonl
  simlens simulate --meta prob --tolerance 2 --p-switch 0.75 --n 50 --out meta.sim.jsonl
  simlens simulate --n 800 --shard 3/8 --out part3.jsonl   # one part of eight; simlens merge joins them
  simlens simulate --fork good.sim.jsonl:sim-7-000012:2 --n 5 --out forks.sim.jsonl
  simlens simulate --user exec:"python3 examples/python/agenda_user.py" --agent local-good --n 50 --out mine.sim.jsonl
  simlens convert test/fixtures/datasets/usersimcrs-iard-gold/formatted_IARD_annotated_gold.json -o human.jsonl
  simlens simulate --user llm-icl --icl-pool human.jsonl --agent llm-bad --user-model gpt-4o-mini --n 5 --concurrency 4 --out icl.sim.jsonl

Your own recommender: --agent http://HOST:PORT/chat (docs/simulation.md). On a Slurm cluster:
sbatch --array=0-7 --wrap 'simlens simulate --n 100000 --out all.jsonl', then simlens merge all.jsonl.
`,
  async run(args, io) {
    const { flags: f } = parseArgs(args, FLAGS, { positionals: { max: 0, names: 'no positional arguments' } });
    const command = `simlens simulate ${args.join(' ')}`;
    if (f['save-model'] && !f.out) {
      await saveModel(f, io);
      return 0;
    }
    if (f.fork) return runFork(f, io, command);
    if (f.n === undefined) throw new UsageError('--n is required (the number of conversations)');
    if (!f.out) throw new UsageError('--out is required');
    if (f.resume && f.force) throw new UsageError('--resume and --force contradict each other');
    const { resolved, out, resume } = outputTarget(f, f.out, io);
    const shard = resolved?.shard;
    if (f.concurrency !== undefined && (!Number.isInteger(f.concurrency) || f.concurrency < 1))
      throw new UsageError('--concurrency must be a positive integer');
    let config;
    try {
      config = parseSimulationConfig(withLlmRunConfig(configFromFlags(f), f, io, out), 'options');
    } catch (err) {
      // the field's name becomes its option's ("max_turns" -> "--max-turns"); the rest, values
      // included ("exec:python3 my_sim.py"), is left as it was
      throw new UsageError(
        (err as Error).message.replace(/^options: ([\w.]+)/, (_all, field: string) => `--${field.replace(/_/g, '-')}`),
      );
    }
    if (f['save-model']) await saveModel(f, io);
    const maxFailures = f['max-consecutive-failures'];
    if (maxFailures !== undefined && (!Number.isInteger(maxFailures) || maxFailures < 0))
      throw new UsageError('--max-consecutive-failures must be a whole number >= 0 (0 = never stop)');
    // First Ctrl-C: stop scheduling and retrying, let the conversations in flight finish. Second:
    // abort them. The same RunStop as VS Code's Cancel (src/core/run/stop.ts).
    const stop = new RunStop();
    const onSigint = () => {
      if (stop.request() === 'stopping')
        io.stderr('simlens simulate: finishing the conversations in flight (Ctrl-C again to abort them)\n');
    };
    // SIGTERM (Slurm and Kubernetes preemption, `kill`) is a first Ctrl-C: the manifest is written.
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigint);
    if (f['retry-failed'] && !resume) throw new UsageError('--retry-failed needs --resume');
    try {
      const llm = config.llm
        ? await llmServicesFromFlags(f, io, {
            outFile: out,
            ...stop.llmSignals(),
            command: 'simulate',
            defaultConcurrency: f.concurrency,
          })
        : undefined;
      const result = await runSimulation(config, {
        llm,
        out,
        cwd: io.cwd,
        shard,
        shardSource:
          resolved && resolved.source !== 'option'
            ? { engine: resolved.source, variables: resolved.variables ?? {} }
            : undefined,
        resume,
        retryFailed: f['retry-failed'],
        overwrite: f.force,
        concurrency: f.concurrency,
        ...stop.runOptions(),
        maxConsecutiveFailures: maxFailures,
        // An external simulator's stderr (its logs) goes to ours, control characters escaped.
        simulator: { onStderr: f.quiet ? undefined : (line) => io.stderr(`[simulator] ${escapeControl(line)}\n`) },
        onConversation: f.quiet ? undefined : failurePrinter(io),
        onProgress: progressPrinter(io, f.quiet),
        command,
      }).catch((err: unknown) => {
        // An LLM endpoint that stays down, or a spent budget: finished conversations are kept.
        if (!stopsRun(err)) throw err;
        io.stderr(`simlens simulate: ${runStopOf(err).reason}\ncontinue with the same options and --resume\n`);
        return undefined;
      });
      const usage = llm?.budget.snapshot();
      if (usage?.usage_missing) {
        io.stderr(
          `simlens simulate: ${usage.usage_missing} LLM answers came without "usage"; their ${usage.estimated_tokens} ` +
            `tokens are estimated (4 characters a token) in the manifest's llm.usage\n`,
        );
      }
      return result ? reportRun(result.manifest, out, io) : 1;
    } finally {
      process.removeListener('SIGINT', onSigint);
      process.removeListener('SIGTERM', onSigint);
    }
  },
};
