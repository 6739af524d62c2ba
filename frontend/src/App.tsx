import { AppShell, Center, Loader } from '@mantine/core';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Route, Routes } from 'react-router-dom';
import { NavBar } from './components/NavBar';
import { PageAnnouncer } from './components/PageAnnouncer';
import { MAIN_ID, SkipLink, mainClass } from './components/SkipLink';
import { KeysPage } from './pages/KeysPage';
import { LTTPage } from './pages/LTTPage';
import { OperationsPage } from './pages/OperationsPage';
import { RAGDatabasePage } from './pages/RAGDatabasePage';
import { SignInPage } from './pages/SignInPage';
import { useSession } from './lib/session';

/** The pages, once signed in; the sign-in screen before. */
export function App() {
  const { t } = useTranslation();
  const { state } = useSession();
  // Whether the sign-in screen was shown: then its focused field is gone and the first page takes
  // the focus (PageAnnouncer), as after any change of page.
  const signedInHere = useRef(false);
  if (state.status === 'restoring') {
    return (
      <Center mih="100vh">
        <Loader aria-label={t('app.checkingKey')} />
      </Center>
    );
  }
  if (state.status !== 'signed-in') {
    signedInHere.current = true;
    return <SignInPage />;
  }
  return (
    // A phone's header has two rows: the caller, language and "Sign out", then the page links
    // (NavBar.module.css); from 36em one row.
    <AppShell header={{ height: { base: 96, xs: 56 } }} padding={0}>
      <PageAnnouncer focusOnMount={signedInHere.current} />
      <SkipLink />
      <AppShell.Header>
        <NavBar />
      </AppShell.Header>
      <AppShell.Main id={MAIN_ID} tabIndex={-1} className={mainClass}>
        <Routes>
          <Route path="/" element={<LTTPage />} />
          <Route path="/rag-database" element={<RAGDatabasePage />} />
          <Route path="/keys" element={<KeysPage />} />
          <Route path="/operations" element={<OperationsPage />} />
          <Route path="*" element={<LTTPage />} />
        </Routes>
      </AppShell.Main>
    </AppShell>
  );
}
