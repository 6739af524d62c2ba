import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { PdfLink } from './PdfLink';
import { TEST_KEY, jsonResponse, mockFetch, renderWithProviders } from '../test/utils';

const URL_3 = '/api/v1/documents/doc-1/pages/3.pdf';

function fakeTab() {
  return { opener: {}, document: { title: '', body: { textContent: '' } }, location: { href: '' }, close: vi.fn() };
}

function renderLink() {
  renderWithProviders(
    <PdfLink href={URL_3} label="Open PDF of page 3 of report.pdf (opens in a new tab)" what="page 3 of report.pdf">
      Open page PDF
    </PdfLink>,
  );
  return screen.getByRole('link', { name: 'Open PDF of page 3 of report.pdf (opens in a new tab)' });
}

// jsdom has no blob URLs.
const { createObjectURL, revokeObjectURL } = URL;
beforeEach(() => {
  URL.createObjectURL = vi.fn(() => 'blob:http://localhost/abc');
  URL.revokeObjectURL = vi.fn();
});
afterEach(() => {
  URL.createObjectURL = createObjectURL;
  URL.revokeObjectURL = revokeObjectURL;
});

describe('PdfLink', () => {
  it('fetches the PDF with the key and shows it in a new tab from a blob URL', async () => {
    const tab = fakeTab();
    const open = vi.spyOn(window, 'open').mockReturnValue(tab as unknown as Window);
    const spy = mockFetch({
      [`GET ${URL_3}`]: () => new Response('%PDF-1.7', { headers: { 'Content-Type': 'application/pdf' } }),
    });
    const link = renderLink();
    expect(link).toHaveAttribute('href', URL_3);
    expect(link).toHaveAttribute('target', '_blank');

    await userEvent.setup().click(link);
    expect(open).toHaveBeenCalledWith('', '_blank');
    expect(tab.opener).toBeNull();
    await waitFor(() => expect(tab.location.href).toBe('blob:http://localhost/abc'));
    const [url, init] = spy.mock.calls[0];
    expect(url).toBe(URL_3);
    expect((init?.headers as Record<string, string>).Authorization).toBe(`Bearer ${TEST_KEY}`);
  });

  it('closes the tab and says why when the PDF cannot be fetched', async () => {
    const tab = fakeTab();
    vi.spyOn(window, 'open').mockReturnValue(tab as unknown as Window);
    mockFetch({ [`GET ${URL_3}`]: () => jsonResponse({ detail: 'Document not found' }, 404) });
    await userEvent.setup().click(renderLink());
    expect(await screen.findByText('Document not found')).toBeInTheDocument();
    expect(tab.close).toHaveBeenCalled();
  });
});
