// Types for scripts/vscode-server.cjs (used by the TypeScript E2E harness in test/e2e).
import type { ChildProcess } from 'node:child_process';

export const REPO_ROOT: string;
export const CODE_SERVER_VERSION: string;
export const SERVER_DIR: string;
export function serverEntry(dir?: string): string;
export function serverInstalled(dir?: string): boolean;
export function findChromium(): string | null;
export function freePort(): Promise<number>;
export function waitForHttp(url: string, options?: { timeoutMs?: number; isAlive?: () => boolean }): Promise<number>;
export function installExtension(options: {
  vsix: string;
  extensionsDir: string;
  userDataDir?: string;
  dir?: string;
}): string;

export interface StartOptions {
  workspace?: string;
  extensionsDir: string;
  userDataDir: string;
  /** false keeps workspace trust on (restricted mode for an untrusted folder). Default true. */
  disableWorkspaceTrust?: boolean;
  env?: Record<string, string>;
  port?: number;
  timeoutMs?: number;
  dir?: string;
  logFile?: string;
  /** More command-line options for code-server (e.g. `--builtin-extensions-dir`). */
  extraArgs?: string[];
}

export interface RunningServer {
  url: string;
  workspaceUrl: string;
  port: number;
  pid: number;
  output(): string;
  stop(): Promise<void>;
  child: ChildProcess;
}

export function startServer(options: StartOptions): Promise<RunningServer>;
export function stopServer(pid: number, options?: { graceMs?: number; isAlive?: () => boolean }): Promise<void>;
