/**
 * What the population pickers offer and check, without `vscode` (unit-tested): only files whose
 * first lines are conversations (the importers' sniffer: SimLens JSONL or a format it can read),
 * and a warning when a candidate population shares no task or item category with the reference.
 */
import { sniffFile } from '../../core/importers';
import { conversationTask, type Conversation } from '../../core/model';

/** Splits `paths` into conversation files and the others (with the reason each is left out). */
export async function conversationFilesOnly(
  paths: readonly string[],
): Promise<{ files: string[]; skipped: { path: string; reason: string }[] }> {
  const files: string[] = [];
  const skipped: { path: string; reason: string }[] = [];
  await Promise.all(
    paths.map(async (p, i) => {
      try {
        const sniff = await sniffFile(p);
        if (sniff.format !== undefined) files[i] = p;
        else skipped[i] = { path: p, reason: sniff.kind === 'catalog' ? 'an item catalog' : sniff.reason };
      } catch (e) {
        skipped[i] = { path: p, reason: (e as Error).message };
      }
    }),
  );
  return { files: files.filter(Boolean), skipped: skipped.filter(Boolean) };
}

/** Task ids (without the _good/_bad condition suffix) and recommended items' categories, lower-cased. */
function taskCategories(conversations: readonly Conversation[]): Set<string> {
  const out = new Set<string>();
  for (const c of conversations) {
    const task = conversationTask(c);
    if (task) out.add(task.toLowerCase());
    for (const t of c.turns)
      for (const r of t.recommendations ?? [])
        if (typeof r.category === 'string' && r.category.trim()) out.add(r.category.trim().toLowerCase());
  }
  return out;
}

function sample(set: ReadonlySet<string>): string {
  const items = [...set].sort();
  return items.length ? items.slice(0, 4).join(', ') + (items.length > 4 ? `, … (${items.length})` : '') : 'none';
}

/**
 * One warning per candidate that shares no task or item category with the reference (e.g. movie
 * dialogues against apparel simulations): the comparison would measure the domain, not the
 * simulator. Populations without any task or category information are not judged.
 */
export function domainMismatchWarnings(
  reference: { label: string; conversations: readonly Conversation[] },
  candidates: readonly { label: string; conversations: readonly Conversation[] }[],
): string[] {
  const ref = taskCategories(reference.conversations);
  if (ref.size === 0) return [];
  const warnings: string[] = [];
  for (const c of candidates) {
    const cats = taskCategories(c.conversations);
    if (cats.size === 0 || [...cats].some((x) => ref.has(x))) continue;
    warnings.push(
      `${c.label} shares no task or item category with ${reference.label} (${reference.label}: ${sample(ref)}; ` +
        `${c.label}: ${sample(cats)}): the comparison would measure the difference of domains, not of users.`,
    );
  }
  return warnings;
}
