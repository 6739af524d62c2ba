import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from './App';
import { ADMIN, MEMBER, READER, TEST_KEY, installMockEventStream, jsonResponse, mockFetch, renderWithProviders } from './test/utils';

beforeEach(() => {
  installMockEventStream();
  mockFetch({
    'GET /api/v1/documents': () => jsonResponse({ documents: [], total_documents: 0, total_chunks: 0 }),
  });
});

describe('navigation', () => {
  it('highlights the active tab and switches pages', async () => {
    const user = userEvent.setup();
    renderWithProviders(<App />);
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    const ltt = screen.getByRole('link', { name: 'LTT' });
    const rag = screen.getByRole('link', { name: 'RAG Database' });
    expect(nav).toContainElement(ltt);
    expect(ltt).toHaveAttribute('href', '/');
    expect(rag).toHaveAttribute('href', '/rag-database');
    expect(ltt).toHaveAttribute('aria-current', 'page');
    expect(rag).not.toHaveAttribute('aria-current');
    expect(screen.getByRole('heading', { name: 'Ask the briefing papers' })).toBeInTheDocument();

    await user.click(rag);
    expect(await screen.findByRole('heading', { name: 'RAG Database', level: 1 })).toBeInTheDocument();
    expect(rag).toHaveAttribute('aria-current', 'page');
    expect(ltt).not.toHaveAttribute('aria-current');
  });

  it('opens the RAG Database page directly by URL', async () => {
    renderWithProviders(<App />, { route: '/rag-database' });
    expect(await screen.findByRole('heading', { name: 'RAG Database', level: 1 })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'RAG Database' })).toHaveAttribute('aria-current', 'page');
  });

  it('shows the Keys page to an admin only', async () => {
    const user = userEvent.setup();
    mockFetch({
      'GET /api/v1/documents': () => jsonResponse({ documents: [], total_documents: 0, total_chunks: 0 }),
      'GET /api/v1/keys': () => jsonResponse({ keys: [] }),
    });
    renderWithProviders(<App />, { caller: ADMIN });
    expect(screen.getByTestId('signed-in-as')).toHaveTextContent('ops');
    expect(screen.getByTestId('signed-in-as')).toHaveTextContent('Admin');
    await user.click(screen.getByRole('link', { name: 'Keys' }));
    expect(await screen.findByRole('heading', { name: 'API keys', level: 1 })).toBeInTheDocument();
  });

  it("has no Keys link for a reader, and says the reader's department and role", () => {
    renderWithProviders(<App />, { caller: READER });
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getAllByRole('link').map((l) => l.textContent)).toEqual(['LTT', 'RAG Database']);
    expect(screen.getByTestId('signed-in-as-spoken').textContent).toBe('Signed in to department default as Reader');
    expect(screen.getByRole('button', { name: 'Sign out' })).toBeInTheDocument();
  });
});

describe('"Skip to main content"', () => {
  it('is the first Tab stop; Enter moves the focus to the main region, the next Tab past the header', async () => {
    const user = userEvent.setup();
    renderWithProviders(<App />, { route: '/rag-database' });
    await screen.findByRole('heading', { name: 'RAG Database', level: 1 });
    const url = window.location.href;

    await user.tab();
    const skip = screen.getByRole('link', { name: 'Skip to main content' });
    expect(skip).toHaveFocus();
    await user.keyboard('{Enter}');
    const main = screen.getByRole('main');
    expect(main).toHaveFocus();
    expect(window.location.href).toBe(url);

    await user.tab();
    const focused = document.activeElement as HTMLElement;
    expect(main).toContainElement(focused);
    expect(screen.getByRole('banner')).not.toContainElement(focused);
  });
});


describe('focus after signing in and after a change of page', () => {
  const EMPTY_LIST = { documents: [], total_documents: 0, total_chunks: 0 };

  /** The page's name before the skip link, where the focus goes (out of view). */
  const announcer = () => screen.getByTestId('page-announcer');

  it('goes to the page name after signing in: the next Tab is "Skip to main content"', async () => {
    mockFetch({
      'GET /api/v1/whoami': () => jsonResponse(MEMBER),
      'GET /api/v1/documents': () => jsonResponse(EMPTY_LIST),
    });
    const user = userEvent.setup();
    renderWithProviders(<App />, { caller: null });
    await user.type(screen.getByLabelText(/^API key/), TEST_KEY);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await screen.findByRole('heading', { name: 'Ask the briefing papers', level: 1 });

    await waitFor(() => expect(announcer()).toHaveFocus());
    expect(announcer()).toHaveTextContent('Ask the briefing papers');
    // Before the skip link and the header in the document.
    expect(announcer().compareDocumentPosition(screen.getByRole('banner')) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    await user.tab();
    expect(screen.getByRole('link', { name: 'Skip to main content' })).toHaveFocus();
  });

  it('goes to the new page name after following a page link, and the skip link is next', async () => {
    mockFetch({ 'GET /api/v1/documents': () => jsonResponse(EMPTY_LIST) });
    const user = userEvent.setup();
    renderWithProviders(<App />);
    await screen.findByRole('heading', { name: 'Ask the briefing papers', level: 1 });

    const rag = screen.getByRole('link', { name: 'RAG Database' });
    rag.focus();
    await user.keyboard('{Enter}');
    await screen.findByRole('heading', { name: 'RAG Database', level: 1 });
    expect(announcer()).toHaveFocus();
    expect(announcer()).toHaveTextContent('RAG Database');

    await user.tab();
    const skip = screen.getByRole('link', { name: 'Skip to main content' });
    expect(skip).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(screen.getByRole('main')).toHaveFocus();
  });

  it('stays where it is on the first page shown without signing in here, and on a filter change', async () => {
    const spy = mockFetch({ 'GET /api/v1/documents': () => jsonResponse(EMPTY_LIST) });
    const user = userEvent.setup();
    renderWithProviders(<App />, { route: '/rag-database' });
    await screen.findByRole('heading', { name: 'RAG Database', level: 1 });
    expect(announcer()).not.toHaveFocus();

    // Typing in the search box changes the query string, not the page: the focus stays in the box.
    const search = screen.getByRole('searchbox', { name: 'Search documents' });
    await user.type(search, 'budget{Enter}');
    await waitFor(() => expect(spy.mock.calls.some(([url]) => String(url).includes('q=budget'))).toBe(true));
    expect(search).toHaveFocus();
    expect(announcer()).not.toHaveFocus();
  });
});
