import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { DocumentList } from './DocumentList';
import { makeDocument, renderWithProviders } from '../test/utils';

describe('DocumentList', () => {
  it('shows a grey "by token" badge and a blue "by question" badge', () => {
    renderWithProviders(
      <DocumentList
        documents={[
          makeDocument({ document_id: 'a', filename: 'token.pdf', strategy: 'token', strategy_used: 'token' }),
          makeDocument({
            document_id: 'b',
            filename: 'qa.pdf',
            strategy: 'question',
            strategy_used: 'question',
            chunk_count: 12,
          }),
        ]}
      />,
    );
    const tokenRow = screen.getByRole('article', { name: 'token.pdf' });
    const tokenBadge = within(tokenRow).getByText('Chunked by token').closest('.mantine-Badge-root')!;
    expect(tokenBadge.getAttribute('style')).toContain('--mantine-color-gray');
    expect(within(tokenRow).queryByText('Chunked by question')).not.toBeInTheDocument();

    const qaRow = screen.getByRole('article', { name: 'qa.pdf' });
    const qaBadge = within(qaRow).getByText('Chunked by question').closest('.mantine-Badge-root')!;
    expect(qaBadge.getAttribute('style')).toContain('--mantine-color-blue');
    expect(within(qaRow).getByText('12 chunks')).toBeInTheDocument();
    expect(within(qaRow).getByText('Indexed')).toBeInTheDocument();
  });

  it('says when the question strategy fell back to token chunking', () => {
    renderWithProviders(
      <DocumentList documents={[makeDocument({ strategy: 'question', strategy_used: 'token' })]} />,
    );
    expect(screen.getByText('Fell back to token')).toBeInTheDocument();
  });

  it('shows the failure reason and no progress bar for a failed document', () => {
    renderWithProviders(
      <DocumentList
        documents={[makeDocument({ status: 'failed', stage: 'failed', error: 'PDF is encrypted', chunk_count: 0 })]}
      />,
    );
    expect(screen.getByText('Failed')).toBeInTheDocument();
    expect(screen.getByText('PDF is encrypted')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
  });

  it('shows the empty state', () => {
    renderWithProviders(<DocumentList documents={[]} />);
    expect(screen.getByText(/no documents yet/i)).toBeInTheDocument();
  });
});
