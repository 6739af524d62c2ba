import { useState, type FormEvent } from 'react';
import { Alert, Button, Center, Code, Group, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { ApiError, errorMessage } from '../lib/api';
import { KEY_PREFIX } from '../lib/auth';
import { useSession } from '../lib/session';

const NOT_ACCEPTED =
  'This key was not accepted. Check that you copied all of it, and that it has not been revoked.';

/** Why `error` (thrown by signing in) failed, for the key field. */
function signInError(error: unknown): string {
  if (error instanceof ApiError && error.status === 401) return NOT_ACCEPTED;
  return errorMessage(error);
}

/**
 * The sign-in screen: an API key (`lgk_…`), checked with `GET /api/v1/whoami` before it is kept in
 * the tab's session storage. Shows why the last session ended (a 401) and, when a stored key could
 * not be checked, a way to try again.
 */
export function SignInPage() {
  const { state, signIn, signOut, retry } = useSession();
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const typed = key.trim();
    if (!typed) {
      setError('Enter your API key.');
      return;
    }
    if (!typed.startsWith(KEY_PREFIX)) {
      setError(`An API key starts with ${KEY_PREFIX}.`);
      return;
    }
    setError(null);
    setChecking(true);
    try {
      await signIn(typed);
    } catch (err) {
      setError(signInError(err));
      setChecking(false);
    }
  };

  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder radius="md" p="xl" w="100%" maw={460} shadow="sm">
        <Stack gap="md">
          <div>
            <Text size="sm" fw={700} c="dimmed">
              LegCo Briefing Assistant
            </Text>
            <Title order={1} size="h2">
              Sign in
            </Title>
          </div>

          {state.status === 'signed-out' && state.notice && (
            <Alert color="yellow" title="Signed out" role="alert">
              {state.notice}
            </Alert>
          )}
          {state.status === 'unreachable' && (
            <Alert color="red" title="Could not check your key" role="alert">
              <Stack gap="xs">
                <Text size="sm">{state.message}</Text>
                <Group gap="xs">
                  <Button size="xs" variant="light" onClick={retry}>
                    Try again
                  </Button>
                  <Button size="xs" variant="subtle" color="gray" onClick={() => signOut()}>
                    Use another key
                  </Button>
                </Group>
              </Stack>
            </Alert>
          )}

          <form onSubmit={submit} aria-label="Sign in" noValidate>
            <Stack gap="md">
              <PasswordInput
                label="API key"
                description={`Your key starts with ${KEY_PREFIX}. Your administrator gives you one.`}
                placeholder={`${KEY_PREFIX}…`}
                value={key}
                onChange={(e) => {
                  setKey(e.currentTarget.value);
                  if (error) setError(null);
                }}
                error={error}
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
                visibilityToggleButtonProps={{ 'aria-label': 'Show the key', tabIndex: 0 }}
              />
              <Button type="submit" loading={checking} fullWidth>
                Sign in
              </Button>
            </Stack>
          </form>

          <Text size="xs" c="dimmed">
            The key is kept in this browser tab only, until you sign out or close the tab. On a new
            installation the administrator key is in <Code>var/admin.key</Code> (written by{' '}
            <Code>make up</Code>).
          </Text>
        </Stack>
      </Paper>
    </Center>
  );
}
