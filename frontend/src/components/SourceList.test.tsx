import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { SourceList } from './SourceList';
import { makeSource, renderWithProviders } from '../test/utils';
import type { Source } from '../types';

function renderCards(sources: Source[]) {
  renderWithProviders(<SourceList sources={sources} />);
  return within(screen.getByRole('region', { name: /sources/i })).getAllByRole('listitem');
}

describe('SourceList match badge', () => {
  it.each([
    ['dense', 'Meaning match', /meaning/i],
    ['question-line', 'Question match', /question line/i],
    ['keyword', 'Keyword match', /word match/i],
  ] as const)('labels matched_by "%s" as "%s" next to the score, with an explanatory tooltip', (matchedBy, label, tip) => {
    const [card] = renderCards([makeSource({ matched_by: matchedBy })]);
    const badge = within(card).getByText(label);
    expect(badge.closest('[title]')).toHaveAttribute('title', expect.stringMatching(tip));
    expect(within(card).getByText('Score 0.877')).toBeInTheDocument();
    // The badge sits in the same group as the score badge.
    const group = badge.closest('.mantine-Group-root');
    expect(group).not.toBeNull();
    expect(group).toBe(within(card).getByText('Score 0.877').closest('.mantine-Group-root'));
    // Only the one label.
    const others = ['Meaning match', 'Question match', 'Keyword match'].filter((l) => l !== label);
    for (const other of others) expect(within(card).queryByText(other)).not.toBeInTheDocument();
  });

  it('shows no match badge for an older response without matched_by', () => {
    const older: Partial<Source> = makeSource();
    delete older.matched_by;
    const [card] = renderCards([older as Source]);
    expect(within(card).queryByText(/match$/)).not.toBeInTheDocument();
    expect(within(card).getByText('Score 0.877')).toBeInTheDocument();
  });
});

describe('SourceList matched words', () => {
  it('lists the matched words, including translations, when there are some', () => {
    const [card] = renderCards([
      makeSource({ matched_by: 'keyword', matched_terms: ['allowance', '特惠 (ex gratia)', 'farmers'] }),
    ]);
    expect(within(card).getByTestId('matched-terms')).toHaveTextContent(
      /^Matched words: allowance, 特惠 \(ex gratia\), farmers$/,
    );
  });

  it('hides the line when matched_terms is empty or missing', () => {
    const items = renderCards([makeSource({ matched_terms: [] }), makeSource({ chunk_id: 'doc-1_3' })]);
    expect(items).toHaveLength(2);
    for (const card of items) expect(within(card).queryByText(/matched words/i)).not.toBeInTheDocument();
  });
});

describe('SourceList matched entity', () => {
  it('shows the name terms the question shares with the paper title, only when there are some', () => {
    const [named, other] = renderCards([
      makeSource({ matched_entity: ['hsk', '洪水'] }),
      makeSource({ chunk_id: 'doc-1_3', matched_entity: [] }),
    ]);
    expect(within(named).getByTestId('matched-entity')).toHaveTextContent('Paper named in the question: hsk, 洪水');
    expect(within(other).queryByTestId('matched-entity')).not.toBeInTheDocument();
  });
});

describe('SourceList also-in', () => {
  it('links each other rendition of the passage in a new tab, with page when known', () => {
    const [card] = renderCards([
      makeSource({
        also_in: [
          {
            chunk_id: 'doc-9_4',
            document_id: 'doc-9',
            filename: 'budget-zh.pdf',
            page_number: 5,
            pdf_url: '/api/v1/documents/doc-9/pages/5.pdf',
          },
          {
            chunk_id: 'doc-8_1',
            document_id: 'doc-8',
            filename: 'budget.docx',
            page_number: null,
            pdf_url: '/api/v1/documents/doc-8/file.pdf',
          },
        ],
      }),
    ]);
    const line = within(card).getByText(/^Also in:/);
    expect(line).toHaveTextContent('Also in: budget-zh.pdf p. 5, budget.docx');

    const paged = within(line).getByRole('link', { name: /open budget-zh\.pdf, page 5/i });
    expect(paged).toHaveTextContent('budget-zh.pdf p. 5');
    expect(paged).toHaveAttribute('href', '/api/v1/documents/doc-9/pages/5.pdf');
    expect(paged).toHaveAttribute('target', '_blank');
    expect(paged.getAttribute('rel')).toContain('noopener');

    const unpaged = within(line).getByRole('link', { name: /open budget\.docx \(opens in a new tab\)/i });
    expect(unpaged).toHaveTextContent(/^budget\.docx$/);
    expect(unpaged).toHaveAttribute('href', '/api/v1/documents/doc-8/file.pdf');
    expect(unpaged).toHaveAttribute('target', '_blank');
    expect(unpaged.getAttribute('rel')).toContain('noopener');
  });

  it('shows a rendition without a pdf_url as plain text', () => {
    const [card] = renderCards([
      makeSource({
        pdf_url: null,
        also_in: [{ chunk_id: 'doc-7_0', document_id: 'doc-7', filename: 'notes.txt', page_number: null, pdf_url: null }],
      }),
    ]);
    expect(within(card).getByTestId('also-in')).toHaveTextContent(/^Also in: notes\.txt$/);
    expect(within(card).queryByRole('link')).not.toBeInTheDocument();
  });

  it('hides the line when also_in is empty or missing', () => {
    const items = renderCards([makeSource({ also_in: [] }), makeSource({ chunk_id: 'doc-1_3' })]);
    for (const card of items) expect(within(card).queryByText(/also in/i)).not.toBeInTheDocument();
  });
});

describe('SourceList department', () => {
  it('says which department a passage comes from, or "Shared"', () => {
    const [own, shared, unknown] = renderCards([
      makeSource({ department: 'hab', visibility: 'department' }),
      makeSource({ chunk_id: 'doc-2_0', department: 'ops', visibility: 'shared' }),
      makeSource({ chunk_id: 'doc-3_0', department: null, visibility: null } as unknown as Partial<Source>),
    ]);
    expect(within(own).getByTestId('scope-badge')).toHaveTextContent('Department: hab');
    expect(within(shared).getByTestId('scope-badge')).toHaveTextContent(/^Shared$/);
    // An answer from before departments existed names none.
    expect(within(unknown).queryByTestId('scope-badge')).not.toBeInTheDocument();
  });
});

describe('SourceList passage', () => {
  it('shows the snippet as the query service reflowed it: the space between a header and a question kept', () => {
    const snippet = '(A) 排水系統 問 A1：會否增加上水及粉嶺一帶的水浸風險？ 答 A1：渠務署已完成排水影響評估。';
    const [card] = renderCards([makeSource({ snippet })]);
    expect(within(card).getByText(/^\(A\) 排水系統/).textContent).toBe(snippet);
  });
});
