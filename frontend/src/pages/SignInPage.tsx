import { useState, type FormEvent } from 'react';
import { Alert, Button, Center, Code, Group, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { Trans, useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { ApiError } from '../lib/api';
import { KEY_PREFIX } from '../lib/auth';
import { contentLang } from '../lib/contentLang';
import { errorText } from '../lib/errors';
import { useSession } from '../lib/session';
import { ErrorMessage } from '../components/ErrorMessage';
import { LanguageSwitcher } from '../components/LanguageSwitcher';

/** Why the key field refuses what was typed (checked here, or answered by the gateway). */
type FieldError =
  | { kind: 'empty' }
  | { kind: 'prefix' }
  | { kind: 'failed'; error: unknown };

/** The field's error in the interface language (a 401: the key was not accepted). */
function fieldErrorText(error: FieldError, t: TFunction) {
  if (error.kind === 'empty') return t('signIn.enterKey');
  if (error.kind === 'prefix') return t('signIn.prefix', { prefix: KEY_PREFIX });
  if (error.error instanceof ApiError && error.error.status === 401) return t('signIn.notAccepted');
  const { message, detail } = errorText(error.error, t);
  return (
    <>
      {message}
      {detail && (
        <>
          {' '}
          <span lang={contentLang(detail)}>{detail}</span>
        </>
      )}
    </>
  );
}

/**
 * The sign-in screen: an API key (`lgk_…`), checked with `GET /api/v1/whoami` before it is kept in
 * the tab's session storage. Shows why the last session ended (a 401) and, when a stored key could
 * not be checked, a way to try again. The interface language can be chosen here too.
 */
export function SignInPage() {
  const { t } = useTranslation();
  const { state, signIn, signOut, retry } = useSession();
  const [key, setKey] = useState('');
  const [error, setError] = useState<FieldError | null>(null);
  const [checking, setChecking] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const typed = key.trim();
    if (!typed) {
      setError({ kind: 'empty' });
      return;
    }
    if (!typed.startsWith(KEY_PREFIX)) {
      setError({ kind: 'prefix' });
      return;
    }
    setError(null);
    setChecking(true);
    try {
      await signIn(typed);
    } catch (err) {
      setError({ kind: 'failed', error: err });
      setChecking(false);
    }
  };

  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder radius="md" p="xl" w="100%" maw={460} shadow="sm">
        <Stack gap="md">
          <Group justify="space-between" align="flex-start" wrap="nowrap">
            <div>
              <Text size="sm" fw={700} c="dimmed">
                {t('app.name')}
              </Text>
              <Title order={1} size="h2">
                {t('signIn.title')}
              </Title>
            </div>
            <LanguageSwitcher />
          </Group>

          {state.status === 'signed-out' && state.notice && (
            <Alert color="yellow" title={t('signIn.signedOut')} role="alert">
              {t(`signIn.notice.${state.notice}`)}
            </Alert>
          )}
          {state.status === 'unreachable' && (
            <Alert color="red" title={t('signIn.couldNotCheck')} role="alert">
              <Stack gap="xs">
                <div>
                  <ErrorMessage error={state.error} />
                </div>
                <Group gap="xs">
                  <Button size="xs" variant="light" onClick={retry}>
                    {t('signIn.tryAgain')}
                  </Button>
                  <Button size="xs" variant="subtle" color="gray" onClick={() => signOut()}>
                    {t('signIn.useAnotherKey')}
                  </Button>
                </Group>
              </Stack>
            </Alert>
          )}

          <form onSubmit={submit} aria-label={t('signIn.title')} noValidate>
            <Stack gap="md">
              <PasswordInput
                label={t('signIn.keyLabel')}
                description={t('signIn.keyDescription', { prefix: KEY_PREFIX })}
                placeholder={`${KEY_PREFIX}…`}
                value={key}
                onChange={(e) => {
                  setKey(e.currentTarget.value);
                  if (error) setError(null);
                }}
                error={error ? fieldErrorText(error, t) : null}
                // Mantine's PasswordInput marks only its wrapper invalid; say it on the input.
                aria-invalid={error ? true : undefined}
                autoComplete="off"
                spellCheck={false}
                autoCapitalize="off"
                autoCorrect="off"
                data-autofocus
                autoFocus
                required
                disabled={checking}
                visibilityToggleButtonProps={{ 'aria-label': t('signIn.showKey'), tabIndex: 0 }}
              />
              <Button type="submit" loading={checking} fullWidth>
                {t('signIn.submit')}
              </Button>
            </Stack>
          </form>

          <Text size="xs" c="dimmed">
            <Trans
              i18nKey="signIn.help"
              t={t}
              // A path and a command, not words of either language.
              components={{ file: <Code lang="en" />, command: <Code lang="en" /> }}
              values={{ file: 'var/admin.key', command: 'make up' }}
            />
          </Text>
        </Stack>
      </Paper>
    </Center>
  );
}
