/**
 * Prompt templates: the built-in set plus workspace overrides read from a folder
 * (`.simlens/prompts/<name>.md` or `.txt`). An override file may start with front matter
 * (`---\nversion: mine-2\n---`); without it the version is `ws-<first 8 hex of SHA-256 of the text>`,
 * so editing an override changes its version (and therefore every cache key that used it).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { sha256 } from '../canonical';
import { BUILTIN_TEMPLATES, type BuiltinTemplate } from './builtin';

export { BUILTIN_TEMPLATES, CATEGORY_EXAMPLES } from './builtin';

/** Version of the built-in set as a whole; bumped with any built-in template. */
export const BUILTIN_PROMPTS_VERSION = 'simlens-prompts-1';

interface PromptTemplate {
  name: string;
  version: string;
  text: string;
  variables: readonly string[];
  source: 'builtin' | 'workspace';
  /** The override file, for workspace templates. */
  file?: string;
}

interface RenderedPrompt {
  text: string;
  /** "name@version", recorded with each LLM call and part of its cache key. */
  id: string;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Names of the placeholders used in a text, in order of first use. */
export function placeholders(text: string): string[] {
  const seen = new Set<string>();
  for (const m of text.matchAll(PLACEHOLDER)) seen.add(m[1]);
  return [...seen];
}

export class PromptLibrary {
  private readonly templates = new Map<string, PromptTemplate>();
  /** Files in the overrides folder that were skipped, with the reason. */
  readonly warnings: string[] = [];

  constructor(builtins: readonly BuiltinTemplate[] = BUILTIN_TEMPLATES) {
    for (const b of builtins) this.templates.set(b.name, { ...b, source: 'builtin' });
  }

  /**
   * The built-in set with the overrides found in `dir` (a missing folder means no overrides).
   * Throws when an override uses a placeholder its template does not know, naming file, line and name.
   */
  static async load(dir?: string): Promise<PromptLibrary> {
    const lib = new PromptLibrary();
    if (!dir) return lib;
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      return lib;
    }
    for (const file of names.sort()) {
      const ext = path.extname(file);
      if (ext !== '.md' && ext !== '.txt') continue;
      const name = path.basename(file, ext);
      const full = path.join(dir, file);
      if (!lib.templates.has(name)) {
        lib.warnings.push(
          `${full}: no built-in template is called "${name}" (known: ${[...lib.templates.keys()].join(', ')}); ignored`,
        );
        continue;
      }
      lib.override(name, await fs.readFile(full, 'utf8'), full);
    }
    return lib;
  }

  /** Replaces a template's text (as if read from `file`). */
  override(name: string, raw: string, file = `${name}.md`): void {
    const base = this.templates.get(name);
    if (!base) throw new Error(`${file}: unknown prompt template "${name}"`);
    let text = raw.replace(/\r\n/g, '\n');
    let version: string | undefined;
    const front = /^---\n([\s\S]*?)\n---\n?/.exec(text);
    let bodyLineOffset = 0;
    if (front) {
      const v = /^version:\s*(.+)$/m.exec(front[1]);
      if (v) version = v[1].trim();
      bodyLineOffset = front[0].split('\n').length - 1;
      text = text.slice(front[0].length);
    }
    text = text.replace(/\n+$/, '');
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      for (const m of lines[i].matchAll(PLACEHOLDER)) {
        if (!base.variables.includes(m[1])) {
          throw new Error(
            `${file}:${i + 1 + bodyLineOffset}: unknown placeholder {{${m[1]}}} in template "${name}" (allowed: ${base.variables.join(', ')})`,
          );
        }
      }
    }
    this.templates.set(name, {
      name,
      text,
      variables: base.variables,
      source: 'workspace',
      file,
      version: version ?? `ws-${sha256(text).slice(0, 8)}`,
    });
  }

  /** The template called `name`; throws for an unknown name. */
  get(name: string): PromptTemplate {
    const t = this.templates.get(name);
    if (!t) throw new Error(`unknown prompt template "${name}"`);
    return t;
  }

  /** All templates, sorted by name. */
  list(): PromptTemplate[] {
    return [...this.templates.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Fills the placeholders of `name`. Every placeholder the text uses must be given (a missing one
   * throws); extra variables are ignored, so overrides may drop placeholders they do not want.
   */
  render(name: string, vars: Record<string, string | number>): RenderedPrompt {
    const t = this.get(name);
    const text = t.text.replace(PLACEHOLDER, (_, key: string) => {
      const v = vars[key];
      if (v === undefined) throw new Error(`prompt template "${name}" needs a value for {{${key}}}`);
      return String(v);
    });
    return { text, id: `${t.name}@${t.version}` };
  }

  /** name -> version of every template. */
  versions(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const t of this.list()) out[t.name] = t.version;
    return out;
  }

  /**
   * One string for the run manifest's `prompt_template_version`: the built-in set's version, plus
   * `name@version` of each workspace override among `used` (all templates when omitted).
   */
  manifestVersion(used?: readonly string[]): string {
    const names = used ?? [...this.templates.keys()];
    const overridden = names
      .map((n) => this.templates.get(n))
      .filter((t): t is PromptTemplate => !!t && t.source === 'workspace')
      .map((t) => `${t.name}@${t.version}`)
      .sort();
    return overridden.length ? `${BUILTIN_PROMPTS_VERSION}+${overridden.join(',')}` : BUILTIN_PROMPTS_VERSION;
  }
}

/** Where a workspace keeps its prompt overrides, relative to the workspace root. */
export const WORKSPACE_PROMPTS_DIR = path.join('.simlens', 'prompts');
