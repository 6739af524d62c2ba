import { Group, Text, UnstyledButton } from '@mantine/core';
import { NavLink } from 'react-router-dom';
import classes from './NavBar.module.css';

const LINKS = [
  { to: '/', label: 'LTT', description: 'Ask questions', end: true },
  { to: '/rag-database', label: 'RAG Database', description: 'Manage documents', end: false },
];

export function NavBar() {
  return (
    <Group h="100%" px="md" gap="md" wrap="nowrap" justify="space-between">
      <Text fw={700} size="sm" className={classes.brand} visibleFrom="sm">
        LegCo Briefing Assistant
      </Text>
      <nav aria-label="Main navigation" className={classes.nav}>
        {LINKS.map((link) => (
          <UnstyledButton
            key={link.to}
            component={NavLink}
            to={link.to}
            end={link.end}
            className={classes.link}
            title={link.description}
          >
            {link.label}
          </UnstyledButton>
        ))}
      </nav>
    </Group>
  );
}
