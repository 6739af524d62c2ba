import { describe, expect, it } from 'vitest';
import { tidySnippet } from './format';

describe('tidySnippet', () => {
  it('joins Chinese text split by PDF line breaks and keeps spaces around Latin text and numbers', () => {
    expect(tidySnippet('合共約 615 公頃，預 計可容納約 21.8 萬新增人口。 具體措施')).toBe(
      '合共約 615 公頃，預計可容納約 21.8 萬新增人口。具體措施',
    );
    expect(tidySnippet('The allocation for Q4 is $12 million.')).toBe('The allocation for Q4 is $12 million.');
  });
});
