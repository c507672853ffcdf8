/**
 * Zod issues in words a researcher can act on: the one formatter of validation errors. Each issue
 * becomes a field path in JSON-path style (`turns[2].recommendations[0].item_id`) and a message
 * that says what was expected and what was found (`expected a string, got number 5`, `required
 * field is missing (expected one of "good", "bad")`); unions report the branch that got furthest.
 *
 * Why not zod's own `z.prettifyError` / `z.treeifyError` (zod 4.6, measured on the same inputs):
 * they print "Invalid input: expected string, received number" without the value found, only
 * "Invalid input" for a union, "Invalid option" without the offending value for an enum, and
 * multi-line text with symbols; the JSONL diagnostics need one line per field with the value.
 *
 * Browser-safe (type-only zod import): the report model, run configs and the webview protocol use
 * it as well as the JSONL parser and the importers.
 */
import type * as z from 'zod';

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `["turns", 2, "user_utterance"]` -> `turns[2].user_utterance`; odd keys are quoted: `ratings["Was it easy?"]`. */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const key = String(seg);
      if (IDENT.test(key)) out += out === '' ? key : `.${key}`;
      else out += `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}

/** The value at `path` inside `root`, or undefined where the path does not exist (for messages about a field). */
function valueAtPath(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg as string];
  }
  return v;
}

function short(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** "number 5", "string \"abc\"", "an array", "null", "nothing (the field is missing)". */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array (${v.length} item${v.length === 1 ? '' : 's'})`;
  switch (typeof v) {
    case 'string':
      return `string ${short(JSON.stringify(v))}`;
    case 'number':
      return `number ${v}`;
    case 'boolean':
      return `boolean ${v}`;
    case 'object':
      return 'an object';
    default:
      return typeof v;
  }
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean (true/false)',
  array: 'an array',
  object: 'an object',
  record: 'an object',
  null: 'null',
  bigint: 'an integer',
  nan: 'NaN',
};

function typeName(expected: string): string {
  return TYPE_NAMES[expected] ?? expected;
}

function joinOr(items: string[]): string {
  const uniq = [...new Set(items)];
  if (uniq.length <= 1) return uniq[0] ?? '';
  return `${uniq.slice(0, -1).join(', ')} or ${uniq[uniq.length - 1]}`;
}

/** One zod issue. */
export type ZodIssue = z.core.$ZodIssue;

/** One explained problem: where (path segments) and what, in plain words. */
export interface FieldProblem {
  path: PropertyKey[];
  text: string;
}

/** Flattens one zod issue into readable problems (unions pick the branch that got furthest). */
function explainIssue(issue: ZodIssue, root: unknown, prefix: PropertyKey[]): FieldProblem[] {
  const path = [...prefix, ...issue.path];
  const actual = valueAtPath(root, path);
  switch (issue.code) {
    case 'invalid_type': {
      if (actual === undefined)
        return [{ path, text: `required field is missing (expected ${typeName(issue.expected)})` }];
      if (issue.expected === 'int' && typeof actual === 'number')
        return [{ path, text: `expected an integer, got number ${actual}` }];
      return [{ path, text: `expected ${typeName(issue.expected)}, got ${describeValue(actual)}` }];
    }
    case 'invalid_union': {
      const branches = issue.errors;
      // A discriminated union whose discriminator matched no branch: its allowed values.
      const options = (issue as { options?: unknown }).options;
      if (branches.length === 0 && Array.isArray(options) && options.length) {
        const allowed = options.map((v) => JSON.stringify(v)).join(', ');
        if (actual === undefined) return [{ path, text: `required field is missing (expected one of ${allowed})` }];
        return [{ path, text: `expected one of ${allowed}, got ${describeValue(actual)}` }];
      }
      const rootOnly = branches.every((b) =>
        b.every((i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value')),
      );
      if (rootOnly || branches.length === 0) {
        const expected: string[] = [];
        for (const b of branches)
          for (const i of b) {
            if (i.code === 'invalid_type') expected.push(typeName(i.expected));
            else if (i.code === 'invalid_value') expected.push(i.values.map((v) => JSON.stringify(v)).join(', '));
          }
        if (actual === undefined) return [{ path, text: `required field is missing (expected ${joinOr(expected)})` }];
        return [{ path, text: `expected ${joinOr(expected)}, got ${describeValue(actual)}` }];
      }
      // The branch whose type matched (its issues are deeper), fewest issues first.
      const deep =
        branches.filter((b) => b.some((i) => i.path.length > 0)).sort((a, b) => a.length - b.length)[0] ?? branches[0];
      return deep.flatMap((i) => explainIssue(i, root, path));
    }
    case 'invalid_value': {
      const options = issue.values.map((v) => JSON.stringify(v)).join(', ');
      if (actual === undefined) return [{ path, text: `required field is missing (expected one of ${options})` }];
      return [{ path, text: `expected one of ${options}, got ${describeValue(actual)}` }];
    }
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string')
        return [{ path, text: min <= 1 ? 'must not be empty' : `must have at least ${min} characters` }];
      if (issue.origin === 'array' || issue.origin === 'set')
        return [{ path, text: `must have at least ${min} item${min === 1 ? '' : 's'}` }];
      return [{ path, text: `must be ${issue.inclusive ? '>=' : '>'} ${min}, got ${describeValue(actual)}` }];
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return [{ path, text: `must have at most ${max} characters` }];
      if (issue.origin === 'array' || issue.origin === 'set') return [{ path, text: `must have at most ${max} items` }];
      return [{ path, text: `must be ${issue.inclusive ? '<=' : '<'} ${max}, got ${describeValue(actual)}` }];
    }
    case 'invalid_format': {
      // A schema's own message ("expected a PNG data URL") says it best; zod's defaults start with "Invalid".
      if (!/^Invalid\b/.test(issue.message)) return [{ path, text: `${issue.message}, got ${describeValue(actual)}` }];
      const pattern = (issue as { pattern?: unknown }).pattern;
      const must =
        issue.format === 'regex' && typeof pattern === 'string'
          ? `match ${pattern.startsWith('/') ? pattern : `/${pattern}/`}`
          : `be a valid ${issue.format === 'url' ? 'URL' : issue.format}`;
      return [{ path, text: `must ${must}, got ${describeValue(actual)}` }];
    }
    case 'unrecognized_keys':
      return [
        {
          path,
          text: `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`,
        },
      ];
    default:
      return [{ path, text: issue.message }];
  }
}

/** Every problem of one issue (a union issue can explain into several). */
export function explainZodIssue(issue: ZodIssue, value: unknown): FieldProblem[] {
  return explainIssue(issue, value, []);
}

/**
 * One line for a failed validation: `origin: path: message` of the first problem (`(root)` for
 * the value itself), explained against `value`, the input that was validated. `at` is where
 * `value` sits in the document the message is about (`["budget"]` gives `budget.max_usd`).
 */
export function zodErrorMessage(
  origin: string,
  error: { issues: readonly ZodIssue[] },
  value: unknown,
  at: readonly PropertyKey[] = [],
): string {
  const [first] = zodProblemLines(error, value, at);
  return `${origin}: ${first ?? 'invalid'}`;
}

/**
 * Every problem of a failed validation, one `path: message` each (`(root)` for the value itself),
 * in zod's order; for messages that list several fields (a judge answer, a catalog line).
 */
export function zodProblemLines(
  error: { issues: readonly ZodIssue[] },
  value: unknown,
  at: readonly PropertyKey[] = [],
): string[] {
  return error.issues.map((issue) => {
    const [p] = explainZodIssue(issue, value);
    const path = formatJsonPath([...at, ...(p?.path ?? issue.path)]);
    return `${path || '(root)'}: ${p?.text ?? issue.message}`;
  });
}
