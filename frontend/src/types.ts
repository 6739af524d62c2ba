export type ChunkingStrategy = 'token' | 'question';

export type DocumentStatus = 'queued' | 'processing' | 'indexed' | 'failed';

export type FileType = 'pdf' | 'docx' | 'txt';

export interface DocumentInfo {
  document_id: string;
  filename: string;
  file_type: FileType;
  strategy: ChunkingStrategy;
  /** The strategy that actually produced the chunks, e.g. "token" when question fell back; null before/without splitting. */
  strategy_used: string | null;
  status: DocumentStatus;
  /** uploaded | parsing | splitting | embedding | indexed | failed ... */
  stage: string;
  pages_done: number;
  pages_total: number;
  /** What pages_done/pages_total count: "pages" while parsing, "chunks" while embedding. */
  unit?: string;
  page_count: number | null;
  chunk_count: number;
  upload_date: string;
  updated_at?: string;
  size_bytes?: number;
  department?: string;
  error: string | null;
  warnings: string[];
}

export interface DocumentListResponse {
  documents: DocumentInfo[];
  total_documents: number;
  total_chunks: number;
}

export type ChunkKind = 'qa' | 'section' | 'token';

export interface ChunkInfo {
  chunk_id: string;
  chunk_index: number;
  text: string;
  content_summary: string;
  page_number: number | null;
  pdf_url: string | null;
  strategy_type: ChunkingStrategy;
  chunk_kind?: ChunkKind;
  qa_style?: string | null;
  question_index?: number | null;
  question_id?: string | null;
  question_text?: string | null;
  topic_section?: string | null;
  source_page_range?: [number, number] | null;
  answer_contains_table?: boolean;
  has_table?: boolean;
  followup_count?: number | null;
  internal_ref_count?: number | null;
  part?: number | null;
  parts?: number | null;
}

export interface ChunkListResponse {
  document_id: string;
  chunks: ChunkInfo[];
}

export interface DeleteResponse {
  deleted: boolean;
  message: string;
}

export interface IngestResponse {
  document_id: string;
  filename: string;
  strategy: ChunkingStrategy;
  status: 'queued';
  /** ids of documents with the same filename that this upload replaced */
  replaced: string[];
}

export interface ProgressEvent {
  document_id: string;
  filename: string;
  stage: string;
  status: DocumentStatus;
  pages_done: number;
  pages_total: number;
  unit?: string;
  chunk_count: number;
  error: string | null;
  warnings: string[];
  ts: number | string;
}

export interface QueryRequest {
  question: string;
  top_k?: number;
  document_ids?: string[];
}

/** The retrieval signal under which a source ranked best. */
export type MatchedBy = 'dense' | 'question-line' | 'keyword';

/** The same passage in another document (e.g. the DOCX of a PDF paper), collapsed into a source. */
export interface Rendition {
  chunk_id: string;
  document_id: string;
  filename: string | null;
  page_number: number | null;
  pdf_url: string | null;
}

export interface Source {
  chunk_id: string;
  document_id: string;
  filename: string;
  page_number: number | null;
  score: number;
  snippet: string;
  pdf_url: string | null;
  strategy_type: ChunkingStrategy | string;
  question_id?: string | null;
  question_text?: string | null;
  answer?: string | null;
  topic_section?: string | null;
  source_page_range?: [number, number] | null;
  /** dense = question vs passage embedding; question-line = vs the Q&A pair's question line; keyword = word match. */
  matched_by?: MatchedBy;
  /** Query words found in the passage; translations look like "特惠 (ex gratia)". */
  matched_terms?: string[];
  /** The same passage in other documents. */
  also_in?: Rendition[];
}

export type AnswerMode = 'llm' | 'extractive';

export interface QueryResponse {
  answer: string;
  answer_mode: AnswerMode;
  notice?: string | null;
  sources: Source[];
}
