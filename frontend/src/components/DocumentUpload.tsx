import { useRef, useState } from 'react';
import { Badge, Button, CloseButton, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { Dropzone, type FileRejection } from '@mantine/dropzone';
import { notifications } from '@mantine/notifications';
import type { ChunkingStrategy, DocumentInfo, IngestResponse } from '../types';
import { useApiConfig, useIngestDocument } from '../lib/queries';
import { errorMessage } from '../lib/api';
import { dropzoneAccept, fileTypeList } from '../lib/accept';
import { STRATEGY_OPTIONS } from '../lib/format';
import { StrategySelector } from './StrategySelector';

export interface DocumentUploadProps {
  /** Current documents, used to warn that a same-named upload replaces the old one. */
  existing: DocumentInfo[];
  onUploaded?: (response: IngestResponse) => void;
}

function fileKey(file: File) {
  return `${file.name}:${file.size}:${file.lastModified}`;
}

function formatSize(bytes: number) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export function DocumentUpload({ existing, onUploaded }: DocumentUploadProps) {
  const [strategy, setStrategy] = useState<ChunkingStrategy>('token');
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

  const existingNames = new Set(existing.map((d) => d.filename));
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
        const response = await ingest.mutateAsync({ file, strategy });
        onUploaded?.(response);
        const replaced = response.replaced?.length ?? 0;
        notifications.show({
          color: 'green',
          title: `Queued ${response.filename}`,
          message:
            replaced > 0
              ? `Chunking: ${strategyLabel}. Replaces the previous upload of ${response.filename}.`
              : `Chunking: ${strategyLabel}.`,
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
              const replaces = existingNames.has(file.name);
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
