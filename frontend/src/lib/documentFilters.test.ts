import { describe, expect, it } from 'vitest';
import { filtersFromSearch, filtersToSearch, isFiltered, listParams } from './documentFilters';

describe('document filters in the URL', () => {
  it('reads what the page offers and drops the rest', () => {
    const f = filtersFromSearch(
      new URLSearchParams('q=排水&status=failed,bogus,queued&strategy=words&from=2026-05-01&to=16/05&sort=-chunks&page=3'),
    );
    expect(f).toEqual({
      q: '排水',
      status: ['failed', 'queued'],
      strategy: '',
      department: '',
      from: '2026-05-01',
      to: '',
      sort: '-chunks',
      page: 3,
    });
    expect(filtersFromSearch(new URLSearchParams('page=-2&sort=size')).page).toBe(1);
    expect(filtersFromSearch(new URLSearchParams('sort=size')).sort).toBe('-uploaded_at');
  });

  it('writes a plain URL for the defaults and round-trips the rest', () => {
    const plain = filtersFromSearch(new URLSearchParams());
    expect(filtersToSearch(plain).toString()).toBe('');
    expect(isFiltered(plain)).toBe(false);
    const search = 'q=budget&status=queued%2Cfailed&strategy=question&department=hab&from=2026-05-01&to=2026-05-31&sort=filename&page=2';
    expect(filtersToSearch(filtersFromSearch(new URLSearchParams(search))).toString()).toBe(search);
  });

  it('asks the gateway with its parameter names, 25 a page, the department aside', () => {
    const f = filtersFromSearch(new URLSearchParams('q= budget &status=queued,failed&department=hab&from=2026-05-01&page=2'));
    expect(isFiltered(f)).toBe(true);
    expect(listParams(f).toString()).toBe(
      'q=budget&status=queued&status=failed&uploaded_from=2026-05-01&sort=-uploaded_at&page=2&page_size=25',
    );
  });
});
