import { AppShell } from '@mantine/core';
import { Route, Routes } from 'react-router-dom';
import { NavBar } from './components/NavBar';
import { LTTPage } from './pages/LTTPage';
import { RAGDatabasePage } from './pages/RAGDatabasePage';

export function App() {
  return (
    <AppShell header={{ height: 56 }} padding={0}>
      <AppShell.Header>
        <NavBar />
      </AppShell.Header>
      <AppShell.Main>
        <Routes>
          <Route path="/" element={<LTTPage />} />
          <Route path="/rag-database" element={<RAGDatabasePage />} />
          <Route path="*" element={<LTTPage />} />
        </Routes>
      </AppShell.Main>
    </AppShell>
  );
}
