import type { ReactNode } from 'react';
import {
  MantineProvider,
  Modal,
  Notification,
  createTheme,
  type CSSVariablesResolver,
  type MantineTheme,
} from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { i18n } from './i18n';
import { darken, lightBackground, readableShade } from './lib/contrast';
import { SessionProvider } from './lib/session';

export const theme = createTheme({
  primaryColor: 'indigo',
  // Shade 7: white on a filled button is 4.5:1 or more (shade 6 is 4.0:1 for indigo).
  primaryShade: { light: 7, dark: 8 },
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans HK", "Noto Sans TC", "PingFang HK", "Microsoft JhengHei", sans-serif',
  components: {
    // Every dialog's ✕ (confirmations included) gets an accessible name, in the language of the
    // moment the dialog renders (a getter: Mantine spreads these props at each render).
    Modal: Modal.extend({
      defaultProps: {
        closeButtonProps: {
          get 'aria-label'() {
            return i18n.t('common.closeDialog');
          },
        },
      },
    }),
    // Likewise a notification's ✕ (a toast still shown on the next page was a button without a name).
    Notification: Notification.extend({
      defaultProps: {
        closeButtonProps: {
          get 'aria-label'() {
            return i18n.t('common.closeNotification');
          },
        },
      },
    }),
  },
});

/**
 * Text on Mantine's "light" and "outline" surfaces (alert titles, badges), coloured text
 * (`c="red"`), links and dimmed text, darkened until it is at least 4.5:1 on its background
 * (`lib/contrast.ts`); Mantine's defaults (shade 6, gray 6 for dimmed) are 1.8–3.5:1. Filled
 * surfaces (buttons such as a red "Delete", filled badges) take the lightest shade that white text
 * reaches 4.5:1 on (the primary shade 7 is 3.8:1 for red), and a darker one on hover.
 */
export function readableTextVariables(t: MantineTheme): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, palette] of Object.entries(t.colors)) {
    const text = readableShade(palette, lightBackground(palette, 7));
    out[`--mantine-color-${name}-light-color`] = text;
    out[`--mantine-color-${name}-outline`] = text;
    out[`--mantine-color-${name}-text`] = text;
    const fill = readableShade(palette, '#ffffff');
    out[`--mantine-color-${name}-filled`] = fill;
    out[`--mantine-color-${name}-filled-hover`] = darken(fill, 0.1);
  }
  out['--mantine-color-dimmed'] = t.colors.gray[7];
  out['--mantine-color-anchor'] = out[`--mantine-color-${t.primaryColor}-text`];
  return out;
}

export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: readableTextVariables(t),
  dark: {},
});

export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 10_000, refetchOnWindowFocus: true, retry: 1 },
      mutations: { retry: 0 },
    },
  });
}

export function Providers({ children, queryClient }: { children: ReactNode; queryClient: QueryClient }) {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
      <QueryClientProvider client={queryClient}>
        <SessionProvider>
          <ModalsProvider>
            <Notifications position="top-right" />
            {children}
          </ModalsProvider>
        </SessionProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
