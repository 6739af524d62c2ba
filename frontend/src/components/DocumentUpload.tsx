import { useEffect, useRef, useState } from 'react';
import { Badge, Button, Checkbox, CloseButton, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { Dropzone, type FileRejection } from '@mantine/dropzone';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import type { ChunkingStrategy, IngestResponse } from '../types';
import { useApiConfig, useIngestDocument, useSameNamedDocuments } from '../lib/queries';
import { contentLang } from '../lib/contentLang';
import { dropzoneAccept, fileTypeList } from '../lib/accept';
import { formatSize, strategyLabel as strategyLabelOf } from '../lib/format';
import { ErrorMessage } from './ErrorMessage';
import { isAdmin, visibilityOf } from '../lib/roles';
import { useCaller } from '../lib/session';
import { StrategySelector } from './StrategySelector';

export interface DocumentUploadProps {
  onUploaded?: (response: IngestResponse) => void;
  /** Departments to suggest in an admin's department field. */
  departments?: string[];
}

function fileKey(file: File) {
  return `${file.name}:${file.size}:${file.lastModified}`;
}

export function DocumentUpload({ onUploaded, departments = [] }: DocumentUploadProps) {
  const { t } = useTranslation();
  const caller = useCaller();
  const admin = isAdmin(caller);
  const [strategy, setStrategy] = useState<ChunkingStrategy>('token');
  // Only an admin chooses where an upload goes; everyone else uploads to the key's department.
  const [department, setDepartment] = useState(caller.department);
  const [shared, setShared] = useState(false);
  const [files, setFiles] = useState<File[]>([]);
  const [uploading, setUploading] = useState(false);
  const openRef = useRef<() => void>(null);
  const chooseRef = useRef<HTMLButtonElement>(null);
  const uploadRef = useRef<HTMLButtonElement>(null);
  // "Upload" is disabled while it works, and the browser then drops the focus to the page: once
  // the upload is done the focus goes to "Choose files…" — unless the user has moved it elsewhere.
  const refocus = useRef(false);
  useEffect(() => {
    if (uploading || !refocus.current) return;
    refocus.current = false;
    const active = document.activeElement;
    if (!active || active === document.body || active === uploadRef.current) chooseRef.current?.focus();
  }, [uploading]);
  const ingest = useIngestDocument();
  // Until the gateway's rules arrive (or if it cannot say), the picker takes any file and the
  // gateway's answer to the upload says what is wrong.
  const extensions = useApiConfig().data?.accepted_extensions;
  const accept = extensions ? dropzoneAccept(extensions) : undefined;
  const anyType = extensions ? fileTypeList(extensions, 'or', t) : null;
  const onlyTypes = extensions ? t('upload.onlyTypes', { types: fileTypeList(extensions, 'and', t) }) : null;

  // An upload replaces a same-named document of the same department and library only.
  const targetDepartment = admin ? department.trim() || caller.department : caller.department;
  const targetVisibility = admin && shared ? 'shared' : 'department';
  // Asked from the server per queued file: the page holds only one page of the documents.
  const sameNamed = useSameNamedDocuments(files.map((f) => f.name));
  const replacesExisting = (name: string) =>
    (sameNamed[name] ?? []).some((d) => d.department === targetDepartment && visibilityOf(d) === targetVisibility);
  const strategyLabel = strategyLabelOf(strategy, t);

  const addFiles = (dropped: File[]) => {
    setFiles((current) => {
      const byName = new Map(current.map((f) => [f.name, f]));
      // A second file with the same name supersedes the first in the queue.
      for (const file of dropped) byName.set(file.name, file);
      return [...byName.values()];
    });
  };

  const onReject = (rejections: FileRejection[]) => {
    for (const rejection of rejections) {
      notifications.show({
        color: 'red',
        title: t('upload.cannotUpload', { name: rejection.file.name }),
        // react-dropzone's reasons are English sentences: the interface says its own.
        message: t('upload.rejected', { reason: onlyTypes ?? t('upload.notAccepted') }),
      });
    }
  };

  const upload = async () => {
    if (files.length === 0) return;
    refocus.current = true;
    setUploading(true);
    const remaining: File[] = [];
    for (const file of files) {
      try {
        const target = admin ? { department: targetDepartment, shared } : undefined;
        const response = await ingest.mutateAsync({ file, strategy, target });
        onUploaded?.(response);
        const replaced = response.replaced?.length ?? 0;
        notifications.show({
          color: 'green',
          title: t('upload.queued', { name: response.filename }),
          message:
            (admin ? (shared ? t('upload.toShared') : t('upload.toDepartment', { department: targetDepartment })) : '') +
            (replaced > 0
              ? t('upload.chunkingReplaces', { strategy: strategyLabel, name: response.filename })
              : t('upload.chunking', { strategy: strategyLabel })),
        });
      } catch (error) {
        remaining.push(file);
        notifications.show({
          color: 'red',
          title: t('upload.failed', { name: file.name }),
          message: <ErrorMessage error={error} />,
          autoClose: false,
        });
      }
    }
    setFiles(remaining);
    setUploading(false);
  };

  return (
    <Paper withBorder radius="md" p="md" component="section" aria-labelledby="upload-heading">
      <Title order={2} size="h4" id="upload-heading" mb="sm">
        {t('upload.title')}
      </Title>
      <Stack gap="md">
        <StrategySelector value={strategy} onChange={setStrategy} disabled={uploading} />
        {admin && (
          <Group gap="md" align="flex-end" wrap="wrap">
            <TextInput
              label={t('upload.department')}
              description={t('upload.departmentDescription')}
              value={department}
              onChange={(e) => setDepartment(e.currentTarget.value)}
              list="upload-departments"
              autoComplete="off"
              spellCheck={false}
              disabled={uploading}
              w={260}
            />
            <datalist id="upload-departments">
              {departments.map((d) => (
                <option key={d} value={d} />
              ))}
            </datalist>
            <Checkbox
              label={t('upload.shared')}
              description={t('upload.sharedDescription')}
              checked={shared}
              onChange={(e) => setShared(e.currentTarget.checked)}
              disabled={uploading}
              maw={360}
            />
          </Group>
        )}
        <Dropzone
          onDrop={addFiles}
          onReject={onReject}
          accept={accept}
          multiple
          openRef={openRef}
          activateOnClick
          disabled={uploading}
          aria-label={anyType ? t('upload.dropTypes', { types: anyType }) : t('upload.drop')}
          name="file"
          inputProps={{ 'aria-label': t('upload.input'), id: 'upload-files' }}
        >
          <Stack align="center" gap={4} py="md" style={{ pointerEvents: 'none' }}>
            <Dropzone.Accept>
              <Text fw={600}>{t('upload.dropAccept')}</Text>
            </Dropzone.Accept>
            <Dropzone.Reject>
              <Text fw={600} c="red">
                {onlyTypes ?? t('upload.notAccepted')}
              </Text>
            </Dropzone.Reject>
            <Dropzone.Idle>
              <Text fw={600}>{t('upload.dragHere')}</Text>
            </Dropzone.Idle>
            <Text size="sm" c="dimmed" ta="center">
              {anyType ? `${anyType}${t('common.separator')}` : ''}
              {t('upload.hint')}
            </Text>
          </Stack>
        </Dropzone>

        {files.length > 0 && (
          <Stack gap={6} role="list" aria-label={t('upload.ready')}>
            {files.map((file) => {
              const replaces = replacesExisting(file.name);
              return (
                <Group key={fileKey(file)} role="listitem" justify="space-between" wrap="nowrap" gap="xs">
                  <Group gap="xs" wrap="wrap" style={{ minWidth: 0 }}>
                    <Text size="sm" style={{ wordBreak: 'break-word' }} lang={contentLang(file.name)}>
                      {file.name}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {formatSize(file.size, t)}
                    </Text>
                    {replaces && (
                      <Badge color="orange" variant="light" size="sm">
                        {t('upload.replaces')}
                      </Badge>
                    )}
                  </Group>
                  <CloseButton
                    aria-label={t('upload.remove', { name: file.name })}
                    onClick={() => setFiles((current) => current.filter((f) => f !== file))}
                    disabled={uploading}
                  />
                </Group>
              );
            })}
          </Stack>
        )}

        <Group gap="sm" wrap="wrap">
          <Button ref={chooseRef} variant="default" onClick={() => openRef.current?.()} disabled={uploading}>
            {t('upload.choose')}
          </Button>
          <Button ref={uploadRef} onClick={upload} disabled={files.length === 0} loading={uploading}>
            {files.length > 1 ? t('upload.uploadMany', { count: files.length }) : t('upload.upload')}
          </Button>
          {files.length > 0 && (
            <Button variant="subtle" color="gray" onClick={() => setFiles([])} disabled={uploading}>
              {t('upload.clear')}
            </Button>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}
