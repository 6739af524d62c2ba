import { Radio, Stack } from '@mantine/core';
import { Trans, useTranslation } from 'react-i18next';
import type { ChunkingStrategy } from '../types';
import { STRATEGY_VALUES, strategyLabel } from '../lib/format';

export interface StrategySelectorProps {
  value: ChunkingStrategy;
  onChange: (value: ChunkingStrategy) => void;
  disabled?: boolean;
}

export function StrategySelector({ value, onChange, disabled }: StrategySelectorProps) {
  const { t } = useTranslation();
  return (
    <Radio.Group
      label={t('upload.strategy')}
      description={t('upload.strategyDescription')}
      value={value}
      onChange={(next) => onChange(next as ChunkingStrategy)}
      name="chunking-strategy"
    >
      <Stack gap="xs" mt="xs">
        {STRATEGY_VALUES.map((strategy) => (
          <Radio
            key={strategy}
            value={strategy}
            label={strategyLabel(strategy, t)}
            // `<zh>` marks the Chinese markers (問/答) inside the English description.
            description={
              <Trans
                i18nKey={`format.strategy.${strategy}.description`}
                t={t}
                components={{ zh: <span lang="zh-HK" /> }}
              />
            }
            disabled={disabled}
          />
        ))}
      </Stack>
    </Radio.Group>
  );
}
