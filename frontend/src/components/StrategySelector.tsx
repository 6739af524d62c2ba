import { Radio, Stack } from '@mantine/core';
import type { ChunkingStrategy } from '../types';
import { STRATEGY_OPTIONS } from '../lib/format';

export interface StrategySelectorProps {
  value: ChunkingStrategy;
  onChange: (value: ChunkingStrategy) => void;
  disabled?: boolean;
}

export function StrategySelector({ value, onChange, disabled }: StrategySelectorProps) {
  return (
    <Radio.Group
      label="Chunking strategy"
      description="Applies to the files uploaded next."
      value={value}
      onChange={(next) => onChange(next as ChunkingStrategy)}
      name="chunking-strategy"
    >
      <Stack gap="xs" mt="xs">
        {STRATEGY_OPTIONS.map((option) => (
          <Radio
            key={option.value}
            value={option.value}
            label={option.label}
            description={option.description}
            disabled={disabled}
          />
        ))}
      </Stack>
    </Radio.Group>
  );
}
