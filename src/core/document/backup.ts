/**
 * Hot-exit backups of a conversation document: only the unsaved annotation values (the journal's
 * current values), never the file. Restoring re-applies them onto the file on disk.
 */
import * as z from 'zod';
import { Annotation, Speaker } from '../model';

const BackupKey = z.object({
  line: z.number().int().nonnegative(),
  conversationId: z.string(),
  turn: z.number().int().nonnegative(),
  speaker: Speaker,
  annotator: z.string().min(1),
  segment: z.number().int().nonnegative().optional(),
});

/** Schema of a backup file written by `ConversationDocumentModel.backup()`. */
export const BackupSchema = z.object({
  format: z.literal('simlens-annotation-backup'),
  version: z.literal(1),
  file: z.string(),
  size: z.number(),
  mtimeMs: z.number(),
  created: z.string(),
  values: z.array(z.object({ key: BackupKey, value: Annotation.nullable() })),
});
export type AnnotationBackup = z.infer<typeof BackupSchema>;
