import { describe, expect, it } from 'vitest';
import { dropzoneAccept, fileTypeList } from './accept';

describe('dropzoneAccept', () => {
  it('lists each accepted extension under the media type browsers give it', () => {
    expect(dropzoneAccept(['.pdf', '.docx', '.txt'])).toEqual({
      'application/pdf': ['.pdf'],
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['.docx'],
      'text/plain': ['.txt'],
    });
  });

  it('still accepts an extension it has no media type for, by name', () => {
    expect(dropzoneAccept(['.pdf', '.md'])).toEqual({
      'application/pdf': ['.pdf'],
      'application/octet-stream': ['.md'],
    });
  });
});

describe('fileTypeList', () => {
  it('names the types as a reader would', () => {
    expect(fileTypeList(['.pdf', '.docx', '.txt'], 'or')).toBe('PDF, DOCX or TXT');
    expect(fileTypeList(['.pdf', '.docx', '.txt'], 'and')).toBe('PDF, DOCX and TXT');
    expect(fileTypeList(['.pdf', '.txt'], 'or')).toBe('PDF or TXT');
    expect(fileTypeList(['.pdf'], 'or')).toBe('PDF');
  });
});
