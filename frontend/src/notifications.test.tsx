import { describe, expect, it } from 'vitest';
import { act, screen } from '@testing-library/react';
import { notifications } from '@mantine/notifications';
import { i18n } from './i18n';
import { renderWithProviders } from './test/utils';

describe('notifications', () => {
  it("name their ✕ in the interface language (axe's button-name: a toast outlives its page)", async () => {
    renderWithProviders(<p>page</p>);
    act(() => {
      notifications.show({ message: 'Key 60a24dbf revoked.' });
    });
    expect(await screen.findByRole('button', { name: 'Close notification' })).toBeInTheDocument();
    await act(async () => {
      notifications.clean();
      await i18n.changeLanguage('zh-HK');
      notifications.show({ message: '已撤銷' });
    });
    expect(await screen.findByRole('button', { name: '關閉通知' })).toBeInTheDocument();
  });
});
