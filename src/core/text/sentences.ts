/** The sentences of a text that ask something (contain "?"), joined; "" when none does. */
export function questionSentences(text: string): string {
  if (!text.includes('?')) return '';
  return text
    .split(/(?<=[.!?])\s+/)
    .filter((sentence) => sentence.includes('?'))
    .join(' ');
}
