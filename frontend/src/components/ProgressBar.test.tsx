import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { ProgressBar, aboutDuration, ordinal, progressLabel } from './ProgressBar';
import { i18n } from '../i18n';
import { makeDocument, renderWithProviders } from '../test/utils';

const queued = { status: 'queued' as const, stage: 'uploaded', pages_done: 0, pages_total: 0 };

describe('ProgressBar', () => {
  it('says plainly which dependency a stage is waiting for, and keeps the counts', () => {
    renderWithProviders(
      <ProgressBar
        doc={makeDocument({ status: 'processing', stage: 'embedding', pages_done: 8, pages_total: 18,
          unit: 'chunks', waiting_for: 'Chroma' })}
      />,
    );
    expect(screen.getByTestId('progress-stage')).toHaveTextContent('Embedding · 8 / 18 chunks');
    expect(screen.getByTestId('progress-waiting')).toHaveTextContent(
      'Waiting for Chroma: it is not answering. Work goes on by itself when it is back.',
    );
    expect(screen.getByRole('progressbar')).toHaveAccessibleName(/waiting for Chroma/);
  });

  it('shows the place in line and the estimate in a polite live region', () => {
    renderWithProviders(<ProgressBar doc={makeDocument({ ...queued, queue_position: 3, eta_s: 125 })} />);
    expect(screen.getByTestId('progress-stage')).toHaveTextContent(/^Queued · 3rd in line · about 2 min$/);
    const live = screen.getByTestId('progress-live');
    expect(live).toHaveAttribute('aria-live', 'polite');
    expect(live).toContainElement(screen.getByTestId('progress-stage'));
    expect(screen.queryByTestId('progress-waiting')).not.toBeInTheDocument();
  });

  it('names the stage a split document waits for, and says "next" for the first', () => {
    const doc = makeDocument({ status: 'processing', stage: 'splitting', pages_done: 4, pages_total: 4,
      queue_position: 1, eta_s: 30 });
    expect(progressLabel(doc)).toBe('Queued for embedding · next in line · under a minute');
  });

  it('shows the time left of a running document, and no estimate when none was measured', () => {
    expect(progressLabel(makeDocument({ status: 'processing', stage: 'embedding', pages_done: 3, pages_total: 12,
      unit: 'chunks', queue_position: null, eta_s: 4000 }))).toBe('Embedding · 3 / 12 chunks · about 1 h 7 min left');
    expect(progressLabel(makeDocument({ ...queued, queue_position: 12, eta_s: null }))).toBe('Queued · 12th in line');
  });

  it('shows the verification step of the splitting stage with the pairs done, and drops it when it ends', () => {
    const verifying = makeDocument({ status: 'processing', stage: 'splitting', pages_done: 0, pages_total: 0,
      step: 'verifying', step_done: 3, step_total: 7 });
    renderWithProviders(<ProgressBar doc={verifying} />);
    expect(screen.getByTestId('progress-stage')).toHaveTextContent(/^Splitting · verifying Q&A pairs: 3 of 7$/);
    expect(screen.getByRole('progressbar')).toHaveAccessibleName(/verifying Q&A pairs: 3 of 7/);
    expect(progressLabel({ ...verifying, step: null, step_done: 0, step_total: 0 })).toBe('Splitting');
    expect(progressLabel({ ...verifying, step: 'reranking', step_done: 1, step_total: 2 })).toBe(
      'Splitting · reranking: 1 of 2');
    expect(progressLabel(verifying, i18n.getFixedT('zh-HK'))).toBe('分塊中 · 核對問答 3 / 7 組');
  });

  it('writes ordinals and durations as people say them', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111].map((n) => ordinal(n))).toEqual(
      ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '23rd', '101st', '111th']);
    expect([0, 59, 60, 89, 90, 3599, 3600, 5400].map((s) => aboutDuration(s))).toEqual([
      'under a minute', 'under a minute', 'about 1 min', 'about 1 min', 'about 2 min', 'about 1 h',
      'about 1 h', 'about 1 h 30 min']);
  });
});
