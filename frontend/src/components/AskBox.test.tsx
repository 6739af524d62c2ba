import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AskBox } from './AskBox';
import { renderWithProviders } from '../test/utils';

describe('AskBox while a question runs', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts the seconds and says the query service is slow after 10 s, still waiting', () => {
    renderWithProviders(<AskBox onAsk={() => {}} loading onCancel={() => {}} />);
    expect(screen.getByTestId('ask-elapsed')).toHaveTextContent('0 s');
    expect(screen.getByRole('status')).toHaveTextContent('Searching the documents…');
    act(() => vi.advanceTimersByTime(3_000));
    expect(screen.getByTestId('ask-elapsed')).toHaveTextContent('3 s');
    act(() => vi.advanceTimersByTime(6_000));
    expect(screen.getByTestId('ask-elapsed')).toHaveTextContent('9 s');
    expect(screen.queryByText(/slow to answer/)).not.toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1_000));
    expect(screen.getByTestId('ask-elapsed')).toHaveTextContent('10 s');
    expect(screen.getByRole('status')).toHaveTextContent(
      'The query service is slow to answer… still waiting (the app gives up after 60 s).',
    );
  });

  it('offers Cancel, which calls onCancel', () => {
    const onCancel = vi.fn();
    renderWithProviders(<AskBox onAsk={() => {}} loading onCancel={onCancel} slowNoticeS={5} timeLimitS={30} />);
    act(() => vi.advanceTimersByTime(5_000));
    expect(screen.getByRole('status')).toHaveTextContent('gives up after 30 s');
    act(() => screen.getByRole('button', { name: 'Cancel' }).click());
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('shows no timer or Cancel when nothing runs, and starts from 0 for the next question', () => {
    function Harness() {
      const [loading, setLoading] = useState(false);
      return (
        <>
          <button type="button" onClick={() => setLoading((l) => !l)}>
            toggle
          </button>
          <AskBox onAsk={() => {}} loading={loading} onCancel={() => {}} />
        </>
      );
    }
    renderWithProviders(<Harness />);
    const toggle = () => act(() => screen.getByRole('button', { name: 'toggle' }).click());
    expect(screen.queryByTestId('ask-elapsed')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Cancel' })).not.toBeInTheDocument();
    toggle();
    act(() => vi.advanceTimersByTime(4_000));
    expect(screen.getByTestId('ask-elapsed')).toHaveTextContent('4 s');
    toggle();
    expect(screen.queryByTestId('ask-elapsed')).not.toBeInTheDocument();
    toggle();
    expect(screen.getByTestId('ask-elapsed')).toHaveTextContent('0 s');
  });
});

describe('AskBox', () => {
  it('sends the trimmed question', async () => {
    const user = userEvent.setup();
    const onAsk = vi.fn();
    renderWithProviders(<AskBox onAsk={onAsk} />);
    await user.type(screen.getByRole('textbox', { name: /question/i }), '  budget?  {Enter}');
    expect(onAsk).toHaveBeenCalledWith({ question: 'budget?', top_k: 5 });
  });
});
