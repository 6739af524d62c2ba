import { useRef, useState } from 'react';
import { Badge, Button, Checkbox, CloseButton, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { Dropzone, type FileRejection } from '@mantine/dropzone';
import { notifications } from '@mantine/notifications';
import type { ChunkingStrategy, IngestResponse } from '../types';
import { useApiConfig, useIngestDocument, useSameNamedDocuments } from '../lib/queries';
import { errorMessage } from '../lib/api';
import { dropzoneAccept, fileTypeList } from '../lib/accept';
import { STRATEGY_OPTIONS } from '../lib/format';
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

function formatSize(bytes: number) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export function DocumentUpload({ onUploaded, departments = [] }: DocumentUploadProps) {
  const caller = useCaller();
  const admin = isAdmin(caller);
  const [strategy, setStrategy] = useState<ChunkingStrategy>('token');
  // Only an admin chooses where an upload goes; everyone else uploads to the key's department.
  const [department, setDepartment] = useState(caller.department);
  const [shared, setShared] = useState(false);
  const [files, setFiles] = useState<File[]>([]);
  const [uploading, setUploading] = useState(false);
  const openRef = useRef<() => void>(null);
  const ingest = useIngestDocument();
  // Until the gateway's rules arrive (or if it cannot say), the picker takes any file and the
  // gateway's answer to the upload says what is wrong.
  const extensions = useApiConfig().data?.accepted_extensions;
  const accept = extensions ? dropzoneAccept(extensions) : undefined;
  const anyType = extensions ? fileTypeList(extensions, 'or') : null;
  const onlyTypes = extensions ? `Only ${fileTypeList(extensions, 'and')} files are accepted` : null;

  // An upload replaces a same-named document of the same department and library only.
  const targetDepartment = admin ? department.trim() || caller.department : caller.department;
  const targetVisibility = admin && shared ? 'shared' : 'department';
  // Asked from the server per queued file: the page holds only one page of the documents.
  const sameNamed = useSameNamedDocuments(files.map((f) => f.name));
  const replacesExisting = (name: string) =>
    (sameNamed[name] ?? []).some((d) => d.department === targetDepartment && visibilityOf(d) === targetVisibility);
  const strategyLabel = STRATEGY_OPTIONS.find((o) => o.value === strategy)?.label ?? strategy;

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
        title: `Cannot upload ${rejection.file.name}`,
        message: rejection.errors.map((e) => e.message).join(' ') || `${onlyTypes ?? 'This file is not accepted'}.`,
      });
    }
  };

  const upload = async () => {
    if (files.length === 0) return;
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
          title: `Queued ${response.filename}`,
          message:
            (admin ? (shared ? 'Shared library. ' : `Department ${targetDepartment}. `) : '') +
            (replaced > 0
              ? `Chunking: ${strategyLabel}. Replaces the previous upload of ${response.filename} once it is indexed.`
              : `Chunking: ${strategyLabel}.`),
        });
      } catch (error) {
        remaining.push(file);
        notifications.show({
          color: 'red',
          title: `Upload failed: ${file.name}`,
          message: errorMessage(error),
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
        Upload documents
      </Title>
      <Stack gap="md">
        <StrategySelector value={strategy} onChange={setStrategy} disabled={uploading} />
        {admin && (
          <Group gap="md" align="flex-end" wrap="wrap">
            <TextInput
              label="Upload to department"
              description="The department the documents belong to"
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
              label="Shared library"
              description="Every department can read and query it; only admins replace or delete it"
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
          aria-label={`Drop ${anyType ? `${anyType} ` : ''}files here, or press Enter to choose files`}
          name="file"
          inputProps={{ 'aria-label': 'Files to upload', id: 'upload-files' }}
        >
          <Stack align="center" gap={4} py="md" style={{ pointerEvents: 'none' }}>
            <Dropzone.Accept>
              <Text fw={600}>Drop to add these files</Text>
            </Dropzone.Accept>
            <Dropzone.Reject>
              <Text fw={600} c="red">
                {onlyTypes ?? 'This file is not accepted'}
              </Text>
            </Dropzone.Reject>
            <Dropzone.Idle>
              <Text fw={600}>Drag briefing papers here</Text>
            </Dropzone.Idle>
            <Text size="sm" c="dimmed" ta="center">
              {anyType ? `${anyType} · ` : ''}Chinese or English · several files at once
            </Text>
          </Stack>
        </Dropzone>

        {files.length > 0 && (
          <Stack gap={6} role="list" aria-label="Files ready to upload">
            {files.map((file) => {
              const replaces = replacesExisting(file.name);
              return (
                <Group key={fileKey(file)} role="listitem" justify="space-between" wrap="nowrap" gap="xs">
                  <Group gap="xs" wrap="wrap" style={{ minWidth: 0 }}>
                    <Text size="sm" style={{ wordBreak: 'break-word' }}>
                      {file.name}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {formatSize(file.size)}
                    </Text>
                    {replaces && (
                      <Badge color="orange" variant="light" size="sm">
                        Replaces existing document
                      </Badge>
                    )}
                  </Group>
                  <CloseButton
                    aria-label={`Remove ${file.name} from the upload list`}
                    onClick={() => setFiles((current) => current.filter((f) => f !== file))}
                    disabled={uploading}
                  />
                </Group>
              );
            })}
          </Stack>
        )}

        <Group gap="sm" wrap="wrap">
          <Button variant="default" onClick={() => openRef.current?.()} disabled={uploading}>
            Choose files…
          </Button>
          <Button onClick={upload} disabled={files.length === 0} loading={uploading}>
            {files.length > 1 ? `Upload ${files.length} files` : 'Upload'}
          </Button>
          {files.length > 0 && (
            <Button variant="subtle" color="gray" onClick={() => setFiles([])} disabled={uploading}>
              Clear
            </Button>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}
