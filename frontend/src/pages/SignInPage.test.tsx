import { beforeEach, describe, expect, it } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from '../App';
import { currentKey, storeKey } from '../lib/auth';
import {
  MEMBER,
  MockEventStream,
  TEST_KEY,
  installMockEventStream,
  jsonResponse,
  mockFetch,
  renderWithProviders,
} from '../test/utils';

/** What the sign-in screen says after a 401 signed the session out. */
const KEY_REJECTED_MESSAGE = 'Your key was not accepted — it may have been revoked. Sign in again.';

const EMPTY_LIST = { documents: [], total_documents: 0, total_chunks: 0 };

function authOf(init: RequestInit | undefined): string | undefined {
  return (init?.headers as Record<string, string> | undefined)?.Authorization;
}

beforeEach(() => installMockEventStream());

/** Render the app signed out (the real session, nothing stored). */
function renderSignedOut(route = '/') {
  return renderWithProviders(<App />, { route, caller: null });
}

async function signIn(key: string) {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText(/^API key/), key);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
  return user;
}

describe('sign-in', () => {
  it('checks the key with whoami, keeps it for the tab and shows department and role', async () => {
    const spy = mockFetch({
      'GET /api/v1/whoami': () => jsonResponse(MEMBER),
      'GET /api/v1/documents': () => jsonResponse(EMPTY_LIST),
    });
    renderSignedOut();
    expect(screen.getByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Main navigation' })).not.toBeInTheDocument();
    const input = screen.getByLabelText(/^API key/);
    expect(input).toHaveAttribute('type', 'password');

    await signIn(TEST_KEY);
    expect(await screen.findByRole('heading', { name: 'Ask the briefing papers' })).toBeInTheDocument();
    const [url, init] = spy.mock.calls.find(([u]) => u === '/api/v1/whoami')!;
    expect(url).toBe('/api/v1/whoami');
    expect(authOf(init)).toBe(`Bearer ${TEST_KEY}`);
    expect(window.sessionStorage.getItem('legco.apiKey')).toBe(TEST_KEY);
    expect(document.cookie).toBe('');
    expect(screen.getByTestId('signed-in-as')).toHaveTextContent('Signed in to department default as Member');
    // Every later call carries the key.
    await waitFor(() => expect(spy.mock.calls.some(([u]) => u === '/api/v1/documents')).toBe(true));
    for (const [, callInit] of spy.mock.calls) expect(authOf(callInit)).toBe(`Bearer ${TEST_KEY}`);
  });

  it('refuses a key the gateway does not accept, and keeps nothing', async () => {
    mockFetch({ 'GET /api/v1/whoami': () => jsonResponse({ detail: 'Invalid API key' }, 401) });
    renderSignedOut();
    await signIn('lgk_deadbeef_wrongwrongwrong');
    expect(await screen.findByText(/This key was not accepted/)).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    const input = screen.getByLabelText(/^API key/);
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveAccessibleDescription(/This key was not accepted/);
    expect(currentKey()).toBeNull();
    // Not the "signed out" notice: this key never signed in.
    expect(screen.queryByText(KEY_REJECTED_MESSAGE)).not.toBeInTheDocument();
  });

  it('checks the key format before asking the gateway', async () => {
    const spy = mockFetch({});
    renderSignedOut();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Enter your API key.')).toBeInTheDocument();
    await signIn('not-a-key');
    expect(await screen.findByText('An API key starts with lgk_.')).toBeInTheDocument();
    expect(spy).not.toHaveBeenCalled();
  });

  it('says so when the gateway cannot be reached', async () => {
    mockFetch({ 'GET /api/v1/whoami': () => Promise.reject(new TypeError('Failed to fetch')) });
    renderSignedOut();
    await signIn(TEST_KEY);
    expect(await screen.findByText(/Cannot reach the server/)).toBeInTheDocument();
    expect(currentKey()).toBeNull();
  });

  it('signs out: the key is forgotten and the sign-in screen is back', async () => {
    storeKey(TEST_KEY);
    mockFetch({
      'GET /api/v1/whoami': () => jsonResponse(MEMBER),
      'GET /api/v1/documents': () => jsonResponse(EMPTY_LIST),
    });
    renderSignedOut();
    // A reload: the stored key is checked again, then the app opens.
    expect(await screen.findByRole('heading', { name: 'Ask the briefing papers' })).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(currentKey()).toBeNull();
    expect(window.sessionStorage.getItem('legco.apiKey')).toBeNull();
  });

  it('offers to try again when a stored key cannot be checked', async () => {
    storeKey(TEST_KEY);
    let up = false;
    mockFetch({
      'GET /api/v1/whoami': () => (up ? jsonResponse(MEMBER) : jsonResponse({ detail: 'starting' }, 503)),
      'GET /api/v1/documents': () => jsonResponse(EMPTY_LIST),
    });
    renderSignedOut();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not check your key');
    up = true;
    await userEvent.setup().click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: 'Ask the briefing papers' })).toBeInTheDocument();
  });
});

describe('a 401 anywhere', () => {
  it('from an API call signs out with the message', async () => {
    storeKey(TEST_KEY);
    mockFetch({
      'GET /api/v1/whoami': () => jsonResponse(MEMBER),
      'GET /api/v1/documents': () => jsonResponse({ detail: 'API key revoked' }, 401),
    });
    renderSignedOut('/rag-database');
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent(KEY_REJECTED_MESSAGE);
    expect(currentKey()).toBeNull();
  });

  it('from a query signs out with the message', async () => {
    storeKey(TEST_KEY);
    let revoked = false;
    mockFetch({
      'GET /api/v1/whoami': () => jsonResponse(MEMBER),
      'GET /api/v1/documents': () => jsonResponse(EMPTY_LIST),
      'POST /api/v1/query/stream': () => {
        revoked = true;
        return jsonResponse({ detail: 'API key revoked' }, 401);
      },
    });
    renderSignedOut();
    const box = await screen.findByRole('textbox', { name: 'Question' });
    const user = userEvent.setup();
    await user.type(box, 'What is the budget?{Enter}');
    expect(await screen.findByText(KEY_REJECTED_MESSAGE)).toBeInTheDocument();
    expect(revoked).toBe(true);
    expect(screen.getByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
  });

  it('from the event stream signs out with the message', async () => {
    storeKey(TEST_KEY);
    mockFetch({
      'GET /api/v1/whoami': () => jsonResponse(MEMBER),
      'GET /api/v1/documents': () => jsonResponse(EMPTY_LIST),
    });
    renderSignedOut('/rag-database');
    expect(await screen.findByRole('heading', { name: 'RAG Database', level: 1 })).toBeInTheDocument();
    await waitFor(() => expect(MockEventStream.instances.length).toBeGreaterThan(0));
    const stream = MockEventStream.latest();
    expect(stream.headers.Authorization).toBe(`Bearer ${TEST_KEY}`);
    act(() => stream.fail(401, { detail: 'API key revoked' }));
    expect(await screen.findByText(KEY_REJECTED_MESSAGE)).toBeInTheDocument();
    expect(currentKey()).toBeNull();
  });

  it('on reload with a revoked key shows the message', async () => {
    storeKey(TEST_KEY);
    mockFetch({ 'GET /api/v1/whoami': () => jsonResponse({ detail: 'API key revoked' }, 401) });
    renderSignedOut();
    expect(await screen.findByText(KEY_REJECTED_MESSAGE)).toBeInTheDocument();
    expect(currentKey()).toBeNull();
  });

  it('then signing in again with another key works, with nothing of the old session cached', async () => {
    storeKey(TEST_KEY);
    let listCalls = 0;
    const spy = mockFetch({
      'GET /api/v1/whoami': (_url, init) =>
        authOf(init) === `Bearer ${TEST_KEY}`
          ? jsonResponse({ detail: 'revoked' }, 401)
          : jsonResponse({ ...MEMBER, key_prefix: 'ffffffff' }),
      'GET /api/v1/documents': () => {
        listCalls += 1;
        return jsonResponse(EMPTY_LIST);
      },
    });
    renderSignedOut();
    expect(await screen.findByText(KEY_REJECTED_MESSAGE)).toBeInTheDocument();
    await signIn('lgk_ffffffff_anotherSecretAnotherSecretAnot');
    expect(await screen.findByRole('heading', { name: 'Ask the briefing papers' })).toBeInTheDocument();
    await waitFor(() => expect(listCalls).toBe(1));
    const last = spy.mock.calls[spy.mock.calls.length - 1];
    expect(authOf(last[1])).toBe('Bearer lgk_ffffffff_anotherSecretAnotherSecretAnot');
  });
});
