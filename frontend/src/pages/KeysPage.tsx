import { useRef, useState, type FormEvent } from 'react';
import {
  Alert,
  Badge,
  Button,
  Code,
  Container,
  Group,
  Loader,
  Modal,
  NativeSelect,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { errorMessage } from '../lib/api';
import { formatDate } from '../lib/format';
import { useCreateKey, useKeys, useRevokeKey } from '../lib/queries';
import { ROLE_DESCRIPTIONS, ROLE_LABELS, isAdmin } from '../lib/roles';
import { useCaller } from '../lib/session';
import type { KeyCreated, KeyInfo, Role } from '../types';

const ROLES: Role[] = ['member', 'reader', 'admin'];

/** Copy `text`; without the Clipboard API (a page served over plain http) select `input` instead. */
async function copyText(text: string, input: HTMLInputElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    input?.focus();
    input?.select();
    return false;
  }
}

/** The dialog showing a new key, the one time it is available. */
function NewKeyDialog({ created, onClose }: { created: KeyCreated | null; onClose: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'no' | 'yes' | 'select'>('no');
  const close = () => {
    setCopied('no');
    onClose();
  };
  return (
    <Modal
      opened={created !== null}
      onClose={close}
      title="New API key"
      centered
      size="lg"
      // The key cannot be shown again: a stray click outside must not lose it.
      closeOnClickOutside={false}
    >
      {created && (
        <Stack gap="md">
          <Text size="sm">
            Key for department <b>{created.department}</b>, role <b>{ROLE_LABELS[created.role]}</b> (prefix{' '}
            <Code>{created.key_prefix}</Code>).
          </Text>
          <Alert color="orange" title="Copy it now" role="alert">
            This key will not be shown again: only a hash of it is stored. If it is lost, revoke it and
            create a new one.
          </Alert>
          <Group gap="xs" align="flex-end" wrap="nowrap">
            <TextInput
              ref={input}
              label="API key"
              value={created.key}
              readOnly
              onFocus={(e) => e.currentTarget.select()}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
              style={{ flex: 1 }}
              spellCheck={false}
            />
            <Button
              variant="light"
              onClick={async () => setCopied((await copyText(created.key, input.current)) ? 'yes' : 'select')}
            >
              {copied === 'yes' ? 'Copied' : 'Copy key'}
            </Button>
          </Group>
          <Text size="xs" c="dimmed" role="status">
            {copied === 'yes' && 'Copied to the clipboard.'}
            {copied === 'select' && 'The key is selected: press Ctrl+C (⌘C) to copy it.'}
          </Text>
          <Group justify="flex-end">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

function CreateKeyForm({ departments, onCreated }: { departments: string[]; onCreated: (k: KeyCreated) => void }) {
  const [department, setDepartment] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [label, setLabel] = useState('');
  const [error, setError] = useState<string | null>(null);
  const create = useCreateKey();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const name = department.trim();
    if (!name) {
      setError('Name the department the key belongs to.');
      return;
    }
    setError(null);
    create.mutate(
      { department: name, role, label: label.trim() },
      {
        onSuccess: (created) => {
          setLabel('');
          onCreated(created);
        },
        onError: (err) =>
          notifications.show({ color: 'red', title: 'Could not create the key', message: errorMessage(err) }),
      },
    );
  };

  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="create-key-heading">
      <Title order={2} size="h4" id="create-key-heading" mb="sm">
        Create a key
      </Title>
      <form onSubmit={submit} aria-label="Create a key" noValidate>
        <Group align="flex-start" gap="md" wrap="wrap">
          <TextInput
            label="Department"
            description="The department whose documents it works with"
            value={department}
            onChange={(e) => setDepartment(e.currentTarget.value)}
            error={error}
            list="key-departments"
            autoComplete="off"
            spellCheck={false}
            required
            w={260}
          />
          <datalist id="key-departments">
            {departments.map((d) => (
              <option key={d} value={d} />
            ))}
          </datalist>
          <NativeSelect
            label="Role"
            description={ROLE_DESCRIPTIONS[role]}
            value={role}
            onChange={(e) => setRole(e.currentTarget.value as Role)}
            data={ROLES.map((r) => ({ value: r, label: ROLE_LABELS[r] }))}
            w={260}
          />
          <TextInput
            label="Label"
            description="Optional: who or what uses it"
            value={label}
            onChange={(e) => setLabel(e.currentTarget.value)}
            autoComplete="off"
            w={240}
          />
        </Group>
        <Button type="submit" mt="md" loading={create.isPending}>
          Create key
        </Button>
      </form>
    </Paper>
  );
}

/** A time cell: short and on one line (the table scrolls sideways on narrow screens). */
function When({ iso, empty = '—' }: { iso: string | null; empty?: string }) {
  if (!iso) return <>{empty}</>;
  return (
    <time dateTime={iso} style={{ whiteSpace: 'nowrap' }}>
      {formatDate(iso)}
    </time>
  );
}

function KeyStatus({ info }: { info: KeyInfo }) {
  if (info.revoked_at) {
    return (
      <Stack gap={2} align="flex-start">
        <Badge color="red" variant="light">
          Revoked
        </Badge>
        <Text size="xs" c="dimmed">
          <When iso={info.revoked_at} />
        </Text>
      </Stack>
    );
  }
  return (
    <Badge color="green" variant="light">
      Active
    </Badge>
  );
}

function KeyTable({ keys, ownPrefix }: { keys: KeyInfo[]; ownPrefix: string }) {
  const revoke = useRevokeKey();
  const confirmRevoke = (info: KeyInfo) => {
    const own = info.key_prefix === ownPrefix;
    modals.openConfirmModal({
      title: 'Revoke this key?',
      centered: true,
      children: (
        <Stack gap="xs">
          <Text size="sm">
            Requests with key <Code>{info.key_prefix}</Code> ({info.department}, {ROLE_LABELS[info.role]}
            {info.label ? `, ${info.label}` : ''}) will be refused from now on. This cannot be undone.
          </Text>
          {own && (
            <Alert color="orange" title="This is your key">
              You are signed in with it: you will be signed out.
            </Alert>
          )}
        </Stack>
      ),
      labels: { confirm: 'Revoke', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        revoke.mutate(info.key_prefix, {
          onSuccess: () => notifications.show({ color: 'green', message: `Key ${info.key_prefix} revoked.` }),
          onError: (err) =>
            notifications.show({ color: 'red', title: `Could not revoke ${info.key_prefix}`, message: errorMessage(err) }),
        }),
    });
  };

  if (keys.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No keys yet.
      </Text>
    );
  }
  // Active keys first, then the newest.
  const sorted = [...keys].sort(
    (a, b) => Number(Boolean(a.revoked_at)) - Number(Boolean(b.revoked_at)) || b.created_at.localeCompare(a.created_at),
  );
  return (
    <Table.ScrollContainer minWidth={860}>
      <Table striped highlightOnHover verticalSpacing="xs" aria-labelledby="keys-heading">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Prefix</Table.Th>
            <Table.Th scope="col">Department</Table.Th>
            <Table.Th scope="col">Role</Table.Th>
            <Table.Th scope="col">Label</Table.Th>
            <Table.Th scope="col">Created</Table.Th>
            <Table.Th scope="col">Last used</Table.Th>
            <Table.Th scope="col">Status</Table.Th>
            <Table.Th scope="col">
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {sorted.map((info) => (
            <Table.Tr key={info.key_prefix} data-key-prefix={info.key_prefix}>
              <Table.Td>
                <Code>{info.key_prefix}</Code>
                {info.key_prefix === ownPrefix && (
                  <Badge size="xs" variant="outline" ml={6}>
                    You
                  </Badge>
                )}
              </Table.Td>
              <Table.Td>{info.department}</Table.Td>
              <Table.Td>{ROLE_LABELS[info.role] ?? info.role}</Table.Td>
              <Table.Td>{info.label || '—'}</Table.Td>
              <Table.Td>
                <When iso={info.created_at} />
              </Table.Td>
              <Table.Td>
                <When iso={info.last_used_at} empty="Never" />
              </Table.Td>
              <Table.Td>
                <KeyStatus info={info} />
              </Table.Td>
              <Table.Td>
                {!info.revoked_at && (
                  <Button
                    size="xs"
                    variant="light"
                    color="red"
                    aria-label={`Revoke key ${info.key_prefix}`}
                    onClick={() => confirmRevoke(info)}
                    loading={revoke.isPending && revoke.variables === info.key_prefix}
                  >
                    Revoke
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** Key management (admin): every key with its department, role and use; create; revoke. */
export function KeysPage() {
  const caller = useCaller();
  if (!isAdmin(caller)) {
    return (
      <Container size="lg" px="md" py="lg">
        <Alert color="gray" title="Keys are managed by administrators">
          Your key ({ROLE_LABELS[caller.role]}, {caller.department}) cannot list or create keys.
        </Alert>
      </Container>
    );
  }
  return <AdminKeys ownPrefix={caller.key_prefix} />;
}

function AdminKeys({ ownPrefix }: { ownPrefix: string }) {
  const keys = useKeys();
  const [created, setCreated] = useState<KeyCreated | null>(null);
  const departments = [...new Set((keys.data?.keys ?? []).map((k) => k.department))].sort((a, b) => a.localeCompare(b));
  return (
    <Container size="lg" px="md" py="lg">
      <Stack gap="lg">
        <div>
          <Title order={1} size="h2">
            API keys
          </Title>
          <Text c="dimmed" size="sm">
            Each key belongs to one department and has a role. A key is shown once, when it is created;
            revoking it refuses its next request.
          </Text>
        </div>

        <CreateKeyForm departments={departments} onCreated={setCreated} />

        <section aria-labelledby="keys-heading">
          <Title order={2} size="h4" id="keys-heading" mb="sm">
            Keys
          </Title>
          {keys.isPending && <Loader size="sm" aria-label="Loading keys" />}
          {keys.isError && (
            <Alert color="red" title="Could not load the keys" role="alert">
              {errorMessage(keys.error)}
            </Alert>
          )}
          {keys.isSuccess && <KeyTable keys={keys.data.keys} ownPrefix={ownPrefix} />}
        </section>
      </Stack>
      <NewKeyDialog created={created} onClose={() => setCreated(null)} />
    </Container>
  );
}
