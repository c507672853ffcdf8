/** Test helper: runs the CLI in-process with a fake CliIo that collects what it prints. */
import { main } from '../../src/cli/cli';

interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** `simlens <argv>` in folder `cwd` with environment `env`. */
export async function runCli(argv: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: (t) => void (out += t), stderr: (t) => void (err += t), cwd, env });
  return { code, out, err };
}
