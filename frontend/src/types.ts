/**
 * The API's types under the names the app uses. They all come from `api-types.ts`, which is
 * generated from the gateway's OpenAPI schema (models in `shared/api.py`): to change a shape,
 * change the model and run `npm run gen:api`; never declare an API shape here by hand.
 */
import type { components } from './api-types';

type Schemas = components['schemas'];

/** A document as the gateway reports it (`GET /api/v1/documents/{id}`, SSE event `document`). */
export type DocumentInfo = Schemas['DocumentRecord'];
export type DocumentListResponse = Schemas['DocumentListResponse'];
/** Data of the SSE event `deleted`. */
export type DeletedNotice = Pick<DocumentInfo, 'document_id'>;
export type IngestResponse = Schemas['IngestResponse'];
export type DeleteResponse = Schemas['DeleteResponse'];
export type ChunkInfo = Schemas['ChunkInfo'];
export type ChunkListResponse = Schemas['ChunkListResponse'];
/** Where a chunk's own text is printed on one page: rects `[x0, y0, x1, y1]` in PDF points, top-left origin. */
export type Highlight = Schemas['Highlight'];
/** What the gateway accepts for upload (`GET /api/v1/config`). */
export type ApiConfig = Schemas['ApiConfig'];

export type QueryRequest = Schemas['QueryRequest'];
export type QueryResponse = Schemas['QueryResponse'];
export type Source = Schemas['Source'];
/** The answer taken from the best source without an LLM: a Q&A pair's prepared answer or a passage's sentences. */
export type DirectAnswer = Schemas['DirectAnswer'];
/** One part of a direct answer: text read out, an internal note, or a follow-up ("if pressed"). */
export type AnswerBlock = Schemas['AnswerBlock'];
/** Another Q&A pair among the sources (where it is, not its answer). */
export type RelatedQuestion = Schemas['RelatedQuestion'];
/** The same passage in another document (e.g. the DOCX of a PDF paper), collapsed into a source. */
export type Rendition = Schemas['Rendition'];

export type ChunkingStrategy = DocumentInfo['strategy'];
export type DocumentStatus = DocumentInfo['status'];
export type FileType = NonNullable<DocumentInfo['file_type']>;
/** The retrieval signal under which a source ranked best. */
export type MatchedBy = Source['matched_by'];
export type AnswerMode = QueryResponse['answer_mode'];

/** `GET /api/v1/whoami`: the key's principal. */
export type Caller = Schemas['Caller'];
/** What a key may do: reader < member < admin. */
export type Role = Caller['role'];
/** Who can see a document: its department only, or every department (the shared library). */
export type Visibility = DocumentInfo['visibility'];
/** One key of `GET /api/v1/keys` (admin); the key itself is never sent again. */
export type KeyInfo = Schemas['KeyInfo'];
export type KeyListResponse = Schemas['KeyList'];
/** Body of `POST /api/v1/keys` (admin). */
export type KeyCreateRequest = Schemas['KeyCreate'];
/** Answer of `POST /api/v1/keys`: the only time the whole key is shown. */
export type KeyCreated = Schemas['KeyCreated'];
export type KeyRevoked = Schemas['KeyRevoked'];
/** One entry of `GET /api/v1/audit` (admin). */
export type AuditEntry = Schemas['AuditEntry'];
export type AuditResponse = Schemas['AuditList'];

/** One chart of the Operations page (`GET /api/v1/operations/panels`, admin). */
export type OpsPanel = Schemas['OpsPanel'];
export type OpsPanelList = Schemas['OpsPanelList'];
/** One series of a panel: labels, legend name, `[unix_s, value | null]` points. */
export type OpsSeries = Schemas['OpsSeries'];
/** `GET /api/v1/operations/panels/{id}/series` (admin): Prometheus proxied by the gateway. */
export type OpsSeriesResponse = Schemas['OpsSeriesResponse'];
/** One dead-lettered event (`GET /api/v1/deadletters`, admin). */
export type DeadLetterEntry = Schemas['DeadLetterEntry'];
export type DeadLetterList = Schemas['DeadLetterList'];
/** Body of `POST /api/v1/deadletters/replay` (admin). */
export type ReplayRequest = Schemas['ReplayRequest'];
export type ReplayResponse = Schemas['ReplayResponse'];
/** One document of a replay: events republished, or why it was skipped. */
export type ReplayedDocument = Schemas['ReplayedDocument'];
