import { useState } from 'react';
import { Button, Group, Text } from '@mantine/core';
import type { QueryResponse } from '../types';
import { buildSpeakingNote, noteFilename } from '../lib/speakingNote';
import { speakingNoteMarkdown } from '../lib/speakingNoteMarkdown';

const STRINGS = {
  group: 'Export as speaking note',
  markdown: 'Download Markdown',
  docx: 'Download DOCX',
  saved: (name: string) => `Saved ${name}, without the internal notes.`,
  failed: 'Could not make the file.',
} as const;

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

/** Exports the answer's speaking note (question, answer without internal notes, sources) as Markdown or DOCX. */
export function ExportSpeakingNote({ question, response }: { question: string; response: QueryResponse }) {
  const [state, setState] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const note = () => buildSpeakingNote(question, response);

  const saveMarkdown = () => {
    const n = note();
    const name = noteFilename(n, 'md');
    download(new Blob([speakingNoteMarkdown(n)], { type: 'text/markdown;charset=utf-8' }), name);
    setState({ ok: true, text: STRINGS.saved(name) });
  };
  const saveDocx = async () => {
    setBusy(true);
    try {
      const { speakingNoteDocx } = await import('../lib/speakingNoteDocx'); // docx: its own chunk
      const n = note();
      const name = noteFilename(n, 'docx');
      download(await speakingNoteDocx(n), name);
      setState({ ok: true, text: STRINGS.saved(name) });
    } catch {
      setState({ ok: false, text: STRINGS.failed });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Group gap="xs" mb="sm" role="group" aria-label={STRINGS.group} data-testid="export-note">
      <Button size="xs" variant="light" onClick={saveMarkdown}>
        {STRINGS.markdown}
      </Button>
      <Button size="xs" variant="light" onClick={() => void saveDocx()} loading={busy}>
        {STRINGS.docx}
      </Button>
      {state && (
        <Text size="xs" c={state.ok ? 'teal' : 'red'} role="status">
          {state.text}
        </Text>
      )}
    </Group>
  );
}
