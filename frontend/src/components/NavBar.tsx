import { Badge, Button, Group, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { NavLink, useLocation } from 'react-router-dom';
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
  // On a phone the links scroll sideways inside the bar: keep the current page's link in view.
  const nav = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  useEffect(() => {
    const reveal = () =>
      nav.current?.querySelector('[aria-current="page"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    reveal();
    window.addEventListener('resize', reveal); // e.g. a phone turned upright
    return () => window.removeEventListener('resize', reveal);
  }, [pathname]);
  return (
    <Group h="100%" wrap="nowrap" justify="space-between" className={classes.bar}>
      <Text fw={700} size="sm" className={classes.brand} visibleFrom="md">
        LegCo Briefing Assistant
      </Text>
      <nav aria-label="Main navigation" className={classes.nav} ref={nav}>
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
