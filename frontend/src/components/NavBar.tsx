import { Badge, Button, Group, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { NavLink, useLocation } from 'react-router-dom';
import { useSession } from '../lib/session';
import { contentLang } from '../lib/contentLang';
import { isAdmin } from '../lib/roles';
import { LanguageSwitcher } from './LanguageSwitcher';
import classes from './NavBar.module.css';

const LINKS = [
  { to: '/', key: 'ltt', end: true, adminOnly: false },
  { to: '/rag-database', key: 'ragDatabase', end: false, adminOnly: false },
  { to: '/keys', key: 'keys', end: false, adminOnly: true },
  { to: '/operations', key: 'operations', end: false, adminOnly: true },
] as const;

const ROLE_COLORS = { admin: 'grape', member: 'indigo', reader: 'gray' } as const;

export function NavBar() {
  const { t } = useTranslation();
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
    <Group h="100%" justify="space-between" className={classes.bar}>
      <Text fw={700} size="sm" className={classes.brand} visibleFrom="md">
        {t('app.name')}
      </Text>
      <nav aria-label={t('nav.main')} className={classes.nav} ref={nav}>
        {LINKS.filter((link) => admin || !link.adminOnly).map((link) => (
          <UnstyledButton
            key={link.to}
            component={NavLink}
            to={link.to}
            end={link.end}
            className={classes.link}
            title={t(`nav.${link.key}.description`)}
          >
            {t(`nav.${link.key}.label`)}
          </UnstyledButton>
        ))}
      </nav>
      <Group gap="xs" wrap="nowrap" className={classes.caller}>
        <LanguageSwitcher compactOnPhone />
        {caller && (
          <>
            <Text
              size="sm"
              data-testid="signed-in-as"
              data-department={caller.department}
              data-role={caller.role}
              className={classes.who}
            >
              {/* Read as one sentence: separate hidden pieces between the flex items would be read
                  apart (Chromium's accessibility tree put a space before "，"); what is seen is hidden
                  from a screen reader. */}
              <VisuallyHidden data-testid="signed-in-as-spoken">
                <Trans
                  i18nKey="nav.signedInAs"
                  t={t}
                  values={{ department: caller.department, role: t(`roles.${caller.role}.label`) }}
                  components={{ department: <span lang={contentLang(caller.department)} /> }}
                />
              </VisuallyHidden>
              <span
                className={classes.department}
                title={t('nav.departmentTitle')}
                lang={contentLang(caller.department)}
                aria-hidden="true"
              >
                {caller.department}
              </span>
              <Badge
                component="span"
                aria-hidden="true"
                variant="light"
                color={ROLE_COLORS[caller.role]}
                title={t('roles.title', { role: t(`roles.${caller.role}.label`), description: t(`roles.${caller.role}.description`) })}
              >
                {t(`roles.${caller.role}.label`)}
              </Badge>
            </Text>
            <Button variant="default" size="xs" onClick={() => signOut()}>
              {t('nav.signOut')}
            </Button>
          </>
        )}
      </Group>
    </Group>
  );
}
