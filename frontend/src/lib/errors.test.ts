import { describe, expect, it } from 'vitest';
import { i18n } from '../i18n';
import { ApiError, QueryAborted } from './api';
import { errorCase, errorText } from './errors';
import { serverNotice } from './serverText';

describe('errorCase', () => {
  it('names each failure by its status, and the known 400s by their sentence', () => {
    const cases: [unknown, string][] = [
      [new ApiError(0), 'network'],
      [new ApiError(401, 'An API key is required.'), 'unauthorized'],
      [new ApiError(403), 'forbidden'],
      [new ApiError(404, 'Document not found'), 'notFound'],
      [new ApiError(413, 'The file is larger than the 100 MB limit.'), 'tooLarge'],
      [new ApiError(415), 'fileType'],
      [new ApiError(400, 'Unsupported file type .rtf; upload a PDF, DOCX or TXT file.'), 'fileType'],
      [new ApiError(422, 'page: must be at least 1'), 'invalid'],
      [new ApiError(429), 'rateLimited'],
      [new ApiError(502), 'unavailable'],
      [new ApiError(503, 'The query service is not reachable; try again shortly.'), 'unavailable'],
      [new ApiError(504), 'timeout'],
      [new ApiError(500), 'server'],
      [new ApiError(400, 'The file is empty.'), 'refused'],
      [new ApiError(409, 'A reindex is already running'), 'refused'],
      [new QueryAborted('cancelled', 60), 'cancelled'],
      [new QueryAborted('timeout', 60), 'queryTimeout'],
      [new TypeError('x is undefined'), 'unknown'],
      ['a string', 'unknown'],
    ];
    expect(cases.map(([error]) => errorCase(error))).toEqual(cases.map(([, kind]) => kind));
  });
});

describe('errorText', () => {
  it("says the failure in English, with the gateway's sentence as the detail", () => {
    expect(errorText(new ApiError(413, 'The file is larger than the 100 MB limit.'))).toEqual({
      message: 'The file is too large to upload.',
      detail: 'The file is larger than the 100 MB limit.',
    });
    expect(errorText(new ApiError(0))).toEqual({
      message: 'Cannot reach the server. Check your connection and that the service is running.',
      detail: null,
    });
    expect(errorText(new ApiError(500)).message).toBe(
      'The server could not complete the request (HTTP 500). Please try again shortly.',
    );
    expect(errorText(new QueryAborted('timeout', 45)).message).toMatch(/^No answer after 45 s\./);
    expect(errorText(new Error('Invalid PDF structure'))).toEqual({
      message: 'Something went wrong.',
      detail: 'Invalid PDF structure',
    });
  });

  it('says every case in Chinese, keeping the English sentence as the detail', async () => {
    await i18n.changeLanguage('zh-HK');
    const expected: [unknown, string][] = [
      [new ApiError(0), '無法連接伺服器。請檢查網絡連線，以及服務是否正在運作。'],
      [new ApiError(401), 'API 密碼匙不獲接受。請重新登入。'],
      [new ApiError(403), '你的密碼匙未獲授權進行此操作。'],
      [new ApiError(404), '找不到所需項目：可能已被刪除，或屬於另一部門。'],
      [new ApiError(413), '檔案太大，無法上載。'],
      [new ApiError(415), '不能上載此類檔案。'],
      [new ApiError(422), '要求無效：請檢查搜尋字詞、篩選條件或所填欄位。'],
      [new ApiError(429), '要求過於頻繁。請稍候再試。'],
      [new ApiError(503), '服務暫時未能提供。請稍後再試。'],
      [new ApiError(504), '服務未能及時回應，可能正處於繁忙狀態。請稍後再試。'],
      [new ApiError(409), '要求被拒（HTTP 409）。'],
      [new QueryAborted('cancelled', 60), '問題已取消。'],
      [new QueryAborted('timeout', 60), '60 秒內未有答案。查詢服務可能正處於繁忙狀態：請稍後再試，或把問題收窄。'],
    ];
    expect(expected.map(([error]) => errorText(error).message)).toEqual(expected.map(([, text]) => text));
    expect(errorText(new ApiError(404, 'Document not found')).detail).toBe('Document not found');
  });
});

describe('serverNotice', () => {
  it('says the known notices in the interface language, and others as sent', async () => {
    const llm = 'The language model could not be reached (ConnectError); showing the answer from the papers.';
    expect(serverNotice(llm)).toEqual({ text: llm, lang: 'en' });
    await i18n.changeLanguage('zh-HK');
    expect(serverNotice(llm)).toEqual({ text: '無法連接語言模型（ConnectError）；現顯示取自文件的答案。', lang: 'zh-HK' });
    expect(serverNotice('No documents are indexed yet, or none match the filter.').text).toBe(
      '尚未有已索引的文件，或沒有文件符合篩選條件。',
    );
    expect(serverNotice('No language model is configured: the answer is taken from the best matching paper.').text)
      .toBe('未有設定語言模型：答案取自最相符的文件。');
    expect(serverNotice('Only filenames were searched: the chunk text cannot be searched right now.').text).toBe(
      '只搜尋了檔案名稱：向量資料庫暫停服務，目前無法搜尋區塊內文。',
    );
    expect(serverNotice('Reindex in progress.')).toEqual({ text: 'Reindex in progress.', lang: 'en' });
  });
});
