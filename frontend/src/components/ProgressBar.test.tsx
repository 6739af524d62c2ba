import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { ProgressBar } from './ProgressBar';
import { makeDocument, renderWithProviders } from '../test/utils';

describe('ProgressBar', () => {
  it('says which dependency a stage is waiting for, and keeps the counts', () => {
    renderWithProviders(
      <ProgressBar
        doc={makeDocument({ status: 'processing', stage: 'embedding', pages_done: 8, pages_total: 18,
          unit: 'chunks', waiting_for: 'Chroma' })}
      />,
    );
    expect(screen.getByTestId('progress-stage')).toHaveTextContent('8 / 18 chunks · waiting for Chroma');
  });
});
