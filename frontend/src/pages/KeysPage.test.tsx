import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { KeysPage } from './KeysPage';
import { ADMIN, MEMBER, jsonResponse, mockFetch, renderWithProviders } from '../test/utils';
import type { KeyInfo } from '../types';

const NEW_KEY = 'lgk_9f8e7d6c_Zx0yW1vU2tS3rQ4pO5nM6lK7jI8hG9f';

function keyInfo(overrides: Partial<KeyInfo> = {}): KeyInfo {
  return {
    key_prefix: 'c3d4e5f6',
    department: 'ops',
    role: 'admin',
    label: 'bootstrap',
    created_at: '2026-05-01T08:00:00Z',
    last_used_at: '2026-05-16T09:00:00Z',
    revoked_at: null,
    ...overrides,
  };
}

/** A mocked key store: GET lists, POST creates (answering NEW_KEY once), DELETE revokes. */
function keyStore(initial: KeyInfo[]) {
  let keys = initial;
  const spy = mockFetch({
    'GET /api/v1/keys': () => jsonResponse({ keys }),
    'POST /api/v1/keys': (_url, init) => {
      const body = JSON.parse(String(init?.body));
      const created = { key: NEW_KEY, key_prefix: '9f8e7d6c', department: body.department, role: body.role, created_at: '2026-05-16T10:00:00Z' };
      keys = [...keys, { ...created, label: body.label, last_used_at: null, revoked_at: null }];
      return jsonResponse(created, 201);
    },
    'DELETE /api/v1/keys/b2c3d4e5': () => {
      keys = keys.map((k) => (k.key_prefix === 'b2c3d4e5' ? { ...k, revoked_at: '2026-05-16T11:00:00Z' } : k));
      return jsonResponse({ revoked: true, key_prefix: 'b2c3d4e5' });
    },
  });
  return spy;
}

const READER_KEY = keyInfo({ key_prefix: 'b2c3d4e5', department: 'default', role: 'reader', label: 'front desk', last_used_at: null });
const OLD_KEY = keyInfo({ key_prefix: 'a0a0a0a0', department: 'hab', role: 'member', label: '', revoked_at: '2026-05-10T00:00:00Z' });

describe('KeysPage', () => {
  it('lists every key: department, role, prefix, label, created, last used, revoked', async () => {
    keyStore([keyInfo(), READER_KEY, OLD_KEY]);
    renderWithProviders(<KeysPage />, { caller: ADMIN, route: '/keys' });
    const table = await screen.findByRole('table', { name: 'Keys' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(3);
    const reader = rows.find((r) => within(r).queryByText('b2c3d4e5'))!;
    expect(within(reader).getByText('default')).toBeInTheDocument();
    expect(within(reader).getByText('Reader')).toBeInTheDocument();
    expect(within(reader).getByText('front desk')).toBeInTheDocument();
    expect(within(reader).getByText('Never')).toBeInTheDocument();
    expect(within(reader).getByText('Active')).toBeInTheDocument();
    expect(within(reader).getByRole('button', { name: 'Revoke key b2c3d4e5' })).toBeInTheDocument();
    // Revoked keys are listed last, with the time, and cannot be revoked again.
    expect(rows[2]).toHaveTextContent('a0a0a0a0');
    expect(within(rows[2]).getByText(/^Revoked/)).toBeInTheDocument();
    expect(within(rows[2]).queryByRole('button', { name: /Revoke/ })).not.toBeInTheDocument();
    // The admin's own key is marked.
    const own = rows.find((r) => within(r).queryByText('c3d4e5f6'))!;
    expect(within(own).getByText('You')).toBeInTheDocument();
    // Never the key itself.
    expect(table).not.toHaveTextContent('lgk_');
  });

  it('shows a created key once, with a copy button and a warning', async () => {
    const user = userEvent.setup();
    const writeText = vi.fn(async () => {});
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    const spy = keyStore([keyInfo()]);
    renderWithProviders(<KeysPage />, { caller: ADMIN, route: '/keys' });
    await screen.findByRole('table', { name: 'Keys' });

    const form = screen.getByRole('form', { name: 'Create a key' });
    await user.click(within(form).getByRole('button', { name: 'Create key' }));
    expect(await within(form).findByText('Name the department the key belongs to.')).toBeInTheDocument();

    await user.type(within(form).getByRole('combobox', { name: /^Department/ }), 'hab');
    await user.selectOptions(within(form).getByRole('combobox', { name: /^Role/ }), 'Reader');
    await user.type(within(form).getByRole('textbox', { name: /^Label/ }), 'clerk');
    await user.click(within(form).getByRole('button', { name: 'Create key' }));

    const dialog = await screen.findByRole('dialog', { name: 'New API key' });
    const post = spy.mock.calls.find(([, init]) => init?.method === 'POST')!;
    expect(JSON.parse(String(post[1]?.body))).toEqual({ department: 'hab', role: 'reader', label: 'clerk' });
    expect(within(dialog).getByRole('textbox', { name: 'API key' })).toHaveValue(NEW_KEY);
    expect(within(dialog).getByText(/will not be shown again/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Copy key' }));
    expect(writeText).toHaveBeenCalledWith(NEW_KEY);
    expect(await within(dialog).findByRole('button', { name: 'Copied' })).toBeInTheDocument();
    // The dialog's close button has a name.
    expect(within(dialog).getByRole('button', { name: 'Close dialog' })).toBeInTheDocument();

    await user.click(within(dialog).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    // Gone for good: the list shows the new key's prefix only.
    const table = screen.getByRole('table', { name: 'Keys' });
    expect(await within(table).findByText('9f8e7d6c')).toBeInTheDocument();
    expect(document.body).not.toHaveTextContent(NEW_KEY);
    expect(screen.queryByDisplayValue(NEW_KEY)).not.toBeInTheDocument();
  });

  it('revokes a key after a confirmation', async () => {
    const user = userEvent.setup();
    const spy = keyStore([keyInfo(), READER_KEY]);
    renderWithProviders(<KeysPage />, { caller: ADMIN, route: '/keys' });
    const revoke = await screen.findByRole('button', { name: 'Revoke key b2c3d4e5' });

    await user.click(revoke);
    let dialog = await screen.findByRole('dialog', { name: 'Revoke this key?' });
    expect(within(dialog).getByText(/will be refused from now on/)).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Close dialog' })).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(spy.mock.calls.some(([, init]) => init?.method === 'DELETE')).toBe(false);

    await user.click(revoke);
    dialog = await screen.findByRole('dialog', { name: 'Revoke this key?' });
    await user.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    await waitFor(() =>
      expect(spy).toHaveBeenCalledWith('/api/v1/keys/b2c3d4e5', expect.objectContaining({ method: 'DELETE' })),
    );
    const row = (await screen.findByText(/^Revoked/)).closest('tr') as HTMLElement;
    expect(row).toHaveTextContent('b2c3d4e5');
    expect(screen.queryByRole('button', { name: 'Revoke key b2c3d4e5' })).not.toBeInTheDocument();
  });

  it('warns before an admin revokes its own key', async () => {
    const user = userEvent.setup();
    keyStore([keyInfo()]);
    renderWithProviders(<KeysPage />, { caller: ADMIN, route: '/keys' });
    await user.click(await screen.findByRole('button', { name: 'Revoke key c3d4e5f6' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke this key?' });
    expect(within(dialog).getByText(/you will be signed out/)).toBeInTheDocument();
  });

  it('is not offered to a member', async () => {
    const spy = mockFetch({});
    renderWithProviders(<KeysPage />, { caller: MEMBER, route: '/keys' });
    expect(screen.getByText('Keys are managed by administrators')).toBeInTheDocument();
    expect(spy.mock.calls.some(([url]) => String(url).startsWith('/api/v1/keys'))).toBe(false);
  });
});
