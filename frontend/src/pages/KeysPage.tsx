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
import { Trans, useTranslation } from 'react-i18next';
import { contentLang } from '../lib/contentLang';
import { formatDate } from '../lib/format';
import { useCreateKey, useKeys, useRevokeKey } from '../lib/queries';
import { isAdmin, roleDescription, roleLabel } from '../lib/roles';
import { ErrorMessage } from '../components/ErrorMessage';
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
  const { t } = useTranslation();
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
      title={t('keys.newKey')}
      centered
      size="lg"
      // The key cannot be shown again: a stray click outside must not lose it.
      closeOnClickOutside={false}
    >
      {created && (
        <Stack gap="md">
          <Text size="sm">
            <Trans
              i18nKey="keys.createdFor"
              t={t}
              values={{ department: created.department, role: roleLabel(created.role, t), prefix: created.key_prefix }}
              components={{ b: <b />, code: <Code /> }}
            />
          </Text>
          <Alert color="orange" title={t('keys.copyNow')} role="alert">
            {t('keys.copyNowText')}
          </Alert>
          <Group gap="xs" align="flex-end" wrap="nowrap">
            <TextInput
              ref={input}
              label={t('signIn.keyLabel')}
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
              {copied === 'yes' ? t('keys.copied') : t('keys.copy')}
            </Button>
          </Group>
          <Text size="xs" c="dimmed" role="status">
            {copied === 'yes' && t('keys.copiedText')}
            {copied === 'select' && t('keys.selected')}
          </Text>
          <Group justify="flex-end">
            <Button onClick={close}>{t('keys.done')}</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

function CreateKeyForm({ departments, onCreated }: { departments: string[]; onCreated: (k: KeyCreated) => void }) {
  const { t } = useTranslation();
  const [department, setDepartment] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [label, setLabel] = useState('');
  const [missing, setMissing] = useState(false);
  const create = useCreateKey();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const name = department.trim();
    if (!name) {
      setMissing(true);
      return;
    }
    setMissing(false);
    create.mutate(
      { department: name, role, label: label.trim() },
      {
        onSuccess: (created) => {
          setLabel('');
          onCreated(created);
        },
        onError: (err) =>
          notifications.show({ color: 'red', title: t('keys.createFailed'), message: <ErrorMessage error={err} /> }),
      },
    );
  };

  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="create-key-heading">
      <Title order={2} size="h4" id="create-key-heading" mb="sm">
        {t('keys.create')}
      </Title>
      <form onSubmit={submit} aria-label={t('keys.create')} noValidate>
        <Group align="flex-start" gap="md" wrap="wrap">
          <TextInput
            label={t('keys.department')}
            description={t('keys.departmentDescription')}
            value={department}
            onChange={(e) => setDepartment(e.currentTarget.value)}
            error={missing ? t('keys.departmentMissing') : null}
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
            label={t('keys.role')}
            description={roleDescription(role, t)}
            value={role}
            onChange={(e) => setRole(e.currentTarget.value as Role)}
            data={ROLES.map((r) => ({ value: r, label: roleLabel(r, t) }))}
            w={260}
          />
          <TextInput
            label={t('keys.label')}
            description={t('keys.labelDescription')}
            value={label}
            onChange={(e) => setLabel(e.currentTarget.value)}
            autoComplete="off"
            w={240}
          />
        </Group>
        <Button type="submit" mt="md" loading={create.isPending}>
          {t('keys.createSubmit')}
        </Button>
      </form>
    </Paper>
  );
}

/** A time cell: short and on one line (the table scrolls sideways on narrow screens). */
function When({ iso, empty = '—' }: { iso: string | null; empty?: string }) {
  const { t } = useTranslation();
  if (!iso) return <>{empty}</>;
  return (
    <time dateTime={iso} style={{ whiteSpace: 'nowrap' }}>
      {formatDate(iso, t)}
    </time>
  );
}

function KeyStatus({ info }: { info: KeyInfo }) {
  const { t } = useTranslation();
  if (info.revoked_at) {
    return (
      <Stack gap={2} align="flex-start">
        <Badge color="red" variant="light">
          {t('keys.revoked')}
        </Badge>
        <Text size="xs" c="dimmed">
          <When iso={info.revoked_at} />
        </Text>
      </Stack>
    );
  }
  return (
    <Badge color="green" variant="light">
      {t('keys.active')}
    </Badge>
  );
}

function KeyTable({ keys, ownPrefix }: { keys: KeyInfo[]; ownPrefix: string }) {
  const { t } = useTranslation();
  const revoke = useRevokeKey();
  const confirmRevoke = (info: KeyInfo) => {
    const own = info.key_prefix === ownPrefix;
    modals.openConfirmModal({
      title: t('keys.revokeTitle'),
      centered: true,
      children: (
        <Stack gap="xs">
          <Text size="sm">
            <Trans
              i18nKey={info.label ? 'keys.revokeTextLabel' : 'keys.revokeText'}
              t={t}
              values={{
                prefix: info.key_prefix,
                department: info.department,
                role: roleLabel(info.role, t),
                label: info.label,
              }}
              components={{ code: <Code />, label: <span lang={contentLang(info.label)} /> }}
            />
          </Text>
          {own && (
            <Alert color="orange" title={t('keys.yourKey')}>
              {t('keys.yourKeyText')}
            </Alert>
          )}
        </Stack>
      ),
      labels: { confirm: t('keys.revoke'), cancel: t('common.cancel') },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        revoke.mutate(info.key_prefix, {
          onSuccess: () => notifications.show({ color: 'green', message: t('keys.revokedText', { prefix: info.key_prefix }) }),
          onError: (err) =>
            notifications.show({
              color: 'red',
              title: t('keys.revokeFailed', { prefix: info.key_prefix }),
              message: <ErrorMessage error={err} />,
            }),
        }),
    });
  };

  if (keys.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {t('keys.none')}
      </Text>
    );
  }
  // Active keys first, then the newest.
  const sorted = [...keys].sort(
    (a, b) => Number(Boolean(a.revoked_at)) - Number(Boolean(b.revoked_at)) || b.created_at.localeCompare(a.created_at),
  );
  return (
    <Table.ScrollContainer minWidth={860}>
      {/* Headings and short cells on one line: Chinese would otherwise break between any two
          characters (角/色) in the columns the table's scroll width squeezes. */}
      <Table striped highlightOnHover verticalSpacing="xs" aria-labelledby="keys-heading"
        styles={{ th: { whiteSpace: 'nowrap' } }}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t('keys.column.prefix')}</Table.Th>
            <Table.Th scope="col">{t('keys.department')}</Table.Th>
            <Table.Th scope="col">{t('keys.role')}</Table.Th>
            <Table.Th scope="col">{t('keys.label')}</Table.Th>
            <Table.Th scope="col">{t('keys.column.created')}</Table.Th>
            <Table.Th scope="col">{t('keys.column.lastUsed')}</Table.Th>
            <Table.Th scope="col">{t('filters.status')}</Table.Th>
            <Table.Th scope="col">
              <VisuallyHidden>{t('keys.column.actions')}</VisuallyHidden>
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
                    {t('keys.you')}
                  </Badge>
                )}
              </Table.Td>
              <Table.Td lang={contentLang(info.department)} style={{ whiteSpace: 'nowrap' }}>{info.department}</Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{roleLabel(info.role, t)}</Table.Td>
              <Table.Td lang={info.label ? contentLang(info.label) : undefined}>{info.label || '—'}</Table.Td>
              <Table.Td>
                <When iso={info.created_at} />
              </Table.Td>
              <Table.Td>
                <When iso={info.last_used_at} empty={t('keys.never')} />
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <KeyStatus info={info} />
              </Table.Td>
              <Table.Td>
                {!info.revoked_at && (
                  <Button
                    size="xs"
                    variant="light"
                    color="red"
                    aria-label={t('keys.revokeLabel', { prefix: info.key_prefix })}
                    onClick={() => confirmRevoke(info)}
                    loading={revoke.isPending && revoke.variables === info.key_prefix}
                  >
                    {t('keys.revoke')}
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
  const { t } = useTranslation();
  const caller = useCaller();
  if (!isAdmin(caller)) {
    return (
      <Container size="lg" px="md" py="lg">
        <Alert color="gray" title={t('keys.adminsOnly')}>
          {t('keys.adminsOnlyText', { role: roleLabel(caller.role, t), department: caller.department })}
        </Alert>
      </Container>
    );
  }
  return <AdminKeys ownPrefix={caller.key_prefix} />;
}

function AdminKeys({ ownPrefix }: { ownPrefix: string }) {
  const { t } = useTranslation();
  const keys = useKeys();
  const [created, setCreated] = useState<KeyCreated | null>(null);
  const departments = [...new Set((keys.data?.keys ?? []).map((k) => k.department))].sort((a, b) => a.localeCompare(b));
  return (
    <Container size="lg" px="md" py="lg">
      <Stack gap="lg">
        <div>
          <Title order={1} size="h2">
            {t('keys.title')}
          </Title>
          <Text c="dimmed" size="sm">
            {t('keys.intro')}
          </Text>
        </div>

        <CreateKeyForm departments={departments} onCreated={setCreated} />

        <section aria-labelledby="keys-heading">
          <Title order={2} size="h4" id="keys-heading" mb="sm">
            {t('nav.keys.label')}
          </Title>
          {keys.isPending && <Loader size="sm" aria-label={t('keys.loading')} />}
          {keys.isError && (
            <Alert color="red" title={t('keys.loadFailed')} role="alert">
              <ErrorMessage error={keys.error} />
            </Alert>
          )}
          {keys.isSuccess && <KeyTable keys={keys.data.keys} ownPrefix={ownPrefix} />}
        </section>
      </Stack>
      <NewKeyDialog created={created} onClose={() => setCreated(null)} />
    </Container>
  );
}
