import { Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { contentLang } from '../lib/contentLang';
import { errorText } from '../lib/errors';

/**
 * A failure in the interface language, and under it the server's own sentence (English as the
 * gateway writes it, marked with its language) when it says more.
 */
export function ErrorMessage({ error }: { error: unknown }) {
  const { t } = useTranslation();
  const { message, detail } = errorText(error, t);
  return (
    <>
      <Text size="sm" inherit component="span" display="block">
        {message}
      </Text>
      {detail && (
        <Text size="xs" component="span" display="block" mt={2} lang={contentLang(detail)} data-testid="error-detail">
          {detail}
        </Text>
      )}
    </>
  );
}
