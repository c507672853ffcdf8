/**
 * Getting a JSON object out of a model's answer. Models wrap JSON in code fences, add a sentence
 * before it, use Python literals, leave trailing commas, or stop mid-object when they hit the
 * token limit. `extractJsonObject` undoes the harmless cases and says what it had to repair;
 * anything else is reported as a problem the caller can send back to the model.
 */

type JsonExtraction = { ok: true; value: Record<string, unknown>; repairs: string[] } | { ok: false; problem: string };

/** Finds and parses the first JSON object in `text`, repairing common slips. */
export function extractJsonObject(text: string): JsonExtraction {
  const repairs: string[] = [];
  let body = text.trim();
  const fence = /```(?:json|JSON)?\s*\n?([\s\S]*?)(?:```|$)/.exec(body);
  if (fence && fence[1].includes('{')) {
    body = fence[1].trim();
    repairs.push('removed code fence');
  }
  const start = body.indexOf('{');
  if (start < 0) return { ok: false, problem: 'no JSON object found in the answer' };
  if (start > 0) repairs.push('dropped text before the object');
  const end = matchingBrace(body, start);
  let candidate: string;
  if (end < 0) {
    candidate = closeTruncated(body.slice(start));
    repairs.push('closed a truncated object');
  } else {
    candidate = body.slice(start, end + 1);
    if (body.slice(end + 1).trim()) repairs.push('dropped text after the object');
  }
  const attempts: Array<[string, string | undefined]> = [
    [candidate, undefined],
    [candidate.replace(/,\s*([}\]])/g, '$1'), 'removed trailing commas'],
    [pythonToJson(candidate.replace(/,\s*([}\]])/g, '$1')), 'converted Python literals'],
  ];
  let lastError = '';
  for (const [src, repair] of attempts) {
    try {
      const value = JSON.parse(src) as unknown;
      if (!value || typeof value !== 'object' || Array.isArray(value))
        return { ok: false, problem: 'the answer is JSON but not an object' };
      if (repair) repairs.push(repair);
      return { ok: true, value: value as Record<string, unknown>, repairs };
    } catch (e) {
      lastError = (e as Error).message;
    }
  }
  return {
    ok: false,
    problem: end < 0 ? `the JSON object is incomplete (${lastError})` : `invalid JSON (${lastError})`,
  };
}

/**
 * Calls `visit` with each character of `text` from `from` that is outside a JSON string (quotes
 * included in the string), stopping when it returns true. Says whether the text ends inside a string.
 */
function forEachOutsideStrings(
  text: string,
  from: number,
  visit: (c: string, i: number) => boolean | void,
): { inString: boolean } {
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (visit(c, i)) break;
  }
  return { inString };
}

/** Index of the brace closing the object opened at `start`, honouring strings; -1 when it never closes. */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let end = -1;
  forEachOutsideStrings(text, start, (c, i) => {
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) {
        end = i;
        return true;
      }
    }
    return false;
  });
  return end;
}

/** Closes an object cut off mid-way: ends an open string, drops a dangling key or comma, closes brackets. */
function closeTruncated(text: string): string {
  const stack: string[] = [];
  const { inString } = forEachOutsideStrings(text, 0, (c) => {
    if (c === '{') stack.push('}');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ']') stack.pop();
  });
  let out = text;
  if (inString) out += '"';
  out = out
    .replace(/,\s*$/, '')
    .replace(/,\s*"[^"]*"\s*:?\s*$/, '')
    .replace(/:\s*$/, ': null');
  return out + stack.reverse().join('');
}

function pythonToJson(text: string): string {
  return text
    .replace(/\bTrue\b/g, 'true')
    .replace(/\bFalse\b/g, 'false')
    .replace(/\bNone\b/g, 'null')
    .replace(/\bNaN\b/g, 'null');
}
