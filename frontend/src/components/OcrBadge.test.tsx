import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import { ChunkCard } from './ChunkCard';
import { SourceList } from './SourceList';
import { makeSource, makeTokenChunk, renderWithProviders } from '../test/utils';

describe('OCR badge', () => {
  it('marks a source read by OCR, with its confidence in the title', () => {
    renderWithProviders(
      <SourceList sources={[makeSource({ ocr: true, ocr_confidence: 0.874 }), makeSource({ chunk_id: 'c-2' })]} />,
    );
    const [ocrCard, plainCard] = within(screen.getByRole('region', { name: /sources/i })).getAllByRole('listitem');
    const badge = within(ocrCard).getByTestId('ocr-badge');
    expect(badge).toHaveTextContent('OCR');
    expect(badge).toHaveAttribute('title', expect.stringMatching(/scanned page by OCR \(confidence 87%\)/));
    expect(within(plainCard).queryByTestId('ocr-badge')).not.toBeInTheDocument();
  });

  it('marks an OCR chunk in the chunk list, without a confidence when none is known', () => {
    renderWithProviders(
      <ChunkCard chunk={makeTokenChunk({ ocr: true, ocr_confidence: null })} filename="scan.pdf" onDelete={vi.fn()} />,
    );
    const badge = screen.getByTestId('ocr-badge');
    expect(badge).toHaveTextContent('OCR');
    expect(badge.getAttribute('title')).toMatch(/scanned page by OCR: /);
  });

  it('shows nothing on a born-digital chunk', () => {
    renderWithProviders(<ChunkCard chunk={makeTokenChunk()} filename="report.pdf" onDelete={vi.fn()} />);
    expect(screen.queryByTestId('ocr-badge')).not.toBeInTheDocument();
  });
});
