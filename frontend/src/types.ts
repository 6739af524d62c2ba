/**
 * The API's types under the names the app uses. They all come from `api-types.ts`, which is
 * generated from the gateway's OpenAPI schema (models in `shared/api.py`): to change a shape,
 * change the model and run `npm run gen:api`; never declare an API shape here by hand. The one
 * exception, until the gateway's OpenAPI has them, is `types-pending.ts` (keys, roles, visibility).
 */
import type { components } from './api-types';
import type { DocumentRecordScope, SourceScope } from './types-pending';

type Schemas = components['schemas'];

/** A document as the gateway reports it (`GET /api/v1/documents/{id}`, SSE event `document`). */
export type DocumentInfo = Schemas['DocumentRecord'] & DocumentRecordScope;
// (Omit & re-add: until the OpenAPI has `visibility`, the list holds the extended record.)
export type DocumentListResponse = Omit<Schemas['DocumentListResponse'], 'documents'> & { documents: DocumentInfo[] };
/** Data of the SSE event `deleted`. */
export type DeletedNotice = Pick<DocumentInfo, 'document_id'>;
export type IngestResponse = Schemas['IngestResponse'];
export type DeleteResponse = Schemas['DeleteResponse'];
export type ChunkInfo = Schemas['ChunkInfo'];
export type ChunkListResponse = Schemas['ChunkListResponse'];
/** What the gateway accepts for upload (`GET /api/v1/config`). */
export type ApiConfig = Schemas['ApiConfig'];

export type QueryRequest = Schemas['QueryRequest'];
export type QueryResponse = Omit<Schemas['QueryResponse'], 'sources'> & { sources: Source[] };
export type Source = Schemas['Source'] & SourceScope;
/** The same passage in another document (e.g. the DOCX of a PDF paper), collapsed into a source. */
export type Rendition = Schemas['Rendition'];

export type ChunkingStrategy = DocumentInfo['strategy'];
export type DocumentStatus = DocumentInfo['status'];
export type FileType = NonNullable<DocumentInfo['file_type']>;
/** The retrieval signal under which a source ranked best. */
export type MatchedBy = Source['matched_by'];
export type AnswerMode = QueryResponse['answer_mode'];

export type {
  AuditEntry,
  AuditResponse,
  Caller,
  KeyCreated,
  KeyCreateRequest,
  KeyInfo,
  KeyListResponse,
  KeyRevoked,
  Role,
  Visibility,
} from './types-pending';
