/**
 * Opening a page PDF in a new tab. A plain link cannot carry the `Authorization` header the
 * gateway requires, so the PDF is fetched with the key and the tab shows it from a `blob:` URL
 * (same origin, readable by nobody else).
 */
import { createElement } from 'react';
import { notifications } from '@mantine/notifications';
import { i18n } from '../i18n';
import { ErrorMessage } from '../components/ErrorMessage';
import { fetchPdf } from './api';

/** How long a PDF tab's blob URL stays valid: enough to load it, then its memory is freed. */
const BLOB_LIFETIME_MS = 5 * 60_000;

/**
 * Fetch `url` (a `pdf_url` of the API) with the session's key and show it in a new tab. Call it from
 * the click itself: the tab is opened synchronously, so pop-up blockers let it through, and filled
 * once the PDF has arrived. On failure the tab is closed and a notification says why (a 401 also
 * signs out, as any request does).
 */
export async function openPdf(url: string, what: string): Promise<void> {
  const tab = window.open('', '_blank');
  if (tab) {
    tab.opener = null;
    const loading = i18n.t('pdf.loading', { what });
    tab.document.title = loading;
    if (tab.document.documentElement) tab.document.documentElement.lang = i18n.t('language.code');
    tab.document.body.textContent = loading;
  }
  try {
    const blob = await fetchPdf(url);
    const objectUrl = URL.createObjectURL(blob);
    if (tab) tab.location.href = objectUrl;
    else window.location.assign(objectUrl);
    setTimeout(() => URL.revokeObjectURL(objectUrl), BLOB_LIFETIME_MS);
  } catch (error) {
    tab?.close();
    notifications.show({
      color: 'red',
      title: i18n.t('pdf.openFailed', { what }),
      message: createElement(ErrorMessage, { error }),
    });
  }
}
