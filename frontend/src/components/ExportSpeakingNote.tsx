import { useState } from 'react';
import { Button, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { QueryResponse } from '../types';
import { noteLabels } from '../lib/noteLabels';
import { buildSpeakingNote, noteFilename } from '../lib/speakingNote';
import { speakingNoteMarkdown } from '../lib/speakingNoteMarkdown';

/** Let the browser save `blob` as `filename` (a download, not a new tab). */
function download(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Exports the answer's speaking note (question, answer without internal notes, sources) as Markdown
 * or DOCX, the note's own words (問題/答案/來源/如被追問…) in the interface language.
 */
export function ExportSpeakingNote({ question, response }: { question: string; response: QueryResponse }) {
  const { t } = useTranslation();
  const [state, setState] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const note = () => buildSpeakingNote(question, response);

  const saveMarkdown = () => {
    const n = note();
    const name = noteFilename(n, 'md');
    download(new Blob([speakingNoteMarkdown(n, noteLabels(t))], { type: 'text/markdown;charset=utf-8' }), name);
    setState({ ok: true, text: t('export.saved', { name }) });
  };
  const saveDocx = async () => {
    setBusy(true);
    try {
      const { speakingNoteDocx } = await import('../lib/speakingNoteDocx'); // docx: its own chunk
      const n = note();
      const name = noteFilename(n, 'docx');
      download(await speakingNoteDocx(n, noteLabels(t)), name);
      setState({ ok: true, text: t('export.saved', { name }) });
    } catch {
      setState({ ok: false, text: t('export.failed') });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Group gap="xs" mb="sm" role="group" aria-label={t('export.group')} data-testid="export-note">
      <Button size="xs" variant="light" onClick={saveMarkdown}>
        {t('export.markdown')}
      </Button>
      <Button size="xs" variant="light" onClick={() => void saveDocx()} loading={busy}>
        {t('export.docx')}
      </Button>
      {state && (
        <Text size="xs" c={state.ok ? 'teal' : 'red'} role="status">
          {state.text}
        </Text>
      )}
    </Group>
  );
}
