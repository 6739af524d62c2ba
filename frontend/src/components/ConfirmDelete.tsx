import type { ReactNode } from 'react';
import { ActionIcon, Button, Text, Tooltip } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useTranslation } from 'react-i18next';
import { i18n } from '../i18n';

export interface ConfirmDeleteProps {
  /** Accessible name of the trigger button, e.g. "Delete document report.pdf". */
  label: string;
  title: string;
  message: ReactNode;
  onConfirm: () => void;
  loading?: boolean;
  /** Render a compact icon button instead of a text button. */
  compact?: boolean;
  buttonText?: string;
}

export function openConfirmDelete({
  title,
  message,
  onConfirm,
}: Pick<ConfirmDeleteProps, 'title' | 'message' | 'onConfirm'>) {
  modals.openConfirmModal({
    title,
    centered: true,
    children: typeof message === 'string' ? <Text size="sm">{message}</Text> : message,
    // In the language of the moment the dialog opens.
    labels: { confirm: i18n.t('common.delete'), cancel: i18n.t('common.cancel') },
    confirmProps: { color: 'red' },
    // Focus starts on Cancel: Enter or Space right after opening must not delete anything.
    cancelProps: { 'data-autofocus': true },
    onConfirm,
  });
}

export function ConfirmDelete({
  label,
  title,
  message,
  onConfirm,
  loading,
  compact,
  buttonText,
}: ConfirmDeleteProps) {
  const { t } = useTranslation();
  const open = () => openConfirmDelete({ title, message, onConfirm });
  if (compact) {
    return (
      <Tooltip label={label}>
        <ActionIcon variant="subtle" color="red" aria-label={label} onClick={open} loading={loading}>
          <span aria-hidden="true">✕</span>
        </ActionIcon>
      </Tooltip>
    );
  }
  return (
    <Button variant="light" color="red" size="xs" aria-label={label} onClick={open} loading={loading}>
      {buttonText ?? t('common.delete')}
    </Button>
  );
}
