import { Badge, Button, Group, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { NavLink } from 'react-router-dom';
import { useSession } from '../lib/session';
import { ROLE_DESCRIPTIONS, ROLE_LABELS, isAdmin } from '../lib/roles';
import classes from './NavBar.module.css';

const LINKS = [
  { to: '/', label: 'LTT', description: 'Ask questions', end: true, adminOnly: false },
  { to: '/rag-database', label: 'RAG Database', description: 'Manage documents', end: false, adminOnly: false },
  { to: '/keys', label: 'Keys', description: 'Manage API keys', end: false, adminOnly: true },
];

const ROLE_COLORS = { admin: 'grape', member: 'indigo', reader: 'gray' } as const;

export function NavBar() {
  const { caller, signOut } = useSession();
  const admin = caller ? isAdmin(caller) : false;
  return (
    <Group h="100%" px="md" gap="md" wrap="nowrap" justify="space-between">
      <Text fw={700} size="sm" className={classes.brand} visibleFrom="md">
        LegCo Briefing Assistant
      </Text>
      <nav aria-label="Main navigation" className={classes.nav}>
        {LINKS.filter((link) => admin || !link.adminOnly).map((link) => (
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
      {caller && (
        <Group gap="xs" wrap="nowrap" className={classes.caller}>
          <Text
            size="sm"
            data-testid="signed-in-as"
            data-department={caller.department}
            data-role={caller.role}
            className={classes.who}
          >
            <VisuallyHidden>Signed in to department </VisuallyHidden>
            <span className={classes.department} title="Your key's department">
              {caller.department}
            </span>
            <VisuallyHidden> as </VisuallyHidden>{' '}
            <Badge
              component="span"
              variant="light"
              color={ROLE_COLORS[caller.role]}
              title={`${ROLE_LABELS[caller.role]}: ${ROLE_DESCRIPTIONS[caller.role]}`}
            >
              {ROLE_LABELS[caller.role]}
            </Badge>
          </Text>
          <Button variant="default" size="xs" onClick={() => signOut()}>
            Sign out
          </Button>
        </Group>
      )}
    </Group>
  );
}
