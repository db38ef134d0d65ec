/**
 * A project's board: its tasks in three columns by status. Cards move by drag and drop, by the keyboard
 * (Shift+Arrow) and through a card's menu; every change made anywhere shows up live. The whole project is read in
 * pages of 1,000 and filtered here (assignee, priority, words of the title), so a filter answers at once and a
 * live change is placed without asking the service; each column draws only the cards in view.
 */
import { useSignal } from '@preact/signals';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, pages } from '../api.ts';
import { useLive } from '../live.ts';
import { CardMenu } from '../parts/card-menu.tsx';
import { Column, type Focus } from '../parts/column.tsx';
import { ErrorText, describe } from '../parts/error.tsx';
import { Choice } from '../parts/choice.tsx';
import { PRIORITY_LABEL, TASK_STATUSES, TASK_STATUS_LABEL } from '../parts/labels.ts';
import { useMembers } from '../parts/members.ts';
import { ProjectHead } from '../parts/project-head.tsx';
import { matchesWords } from '../parts/search.ts';
import { useTitle } from '../parts/title.ts';
import { navigate, place } from '../router.ts';
import { refusal } from '../session.ts';
import type { Project, Task } from '../types.ts';
import { deletedHere, NotFound } from './not-found.tsx';

type Status = Task['status'];

/** A task as the board keeps it: `seq` orders a column, newest first (the order tasks were created in). */
export interface Card extends Task {
  readonly seq: number;
}

const PAGE = 1000;
const UNASSIGNED = '-';

export function Board({ projectId }: { projectId: string }) {
  const [project, setProject] = useState<Project | null | 'missing'>(null);
  const [cards, setCards] = useState<ReadonlyMap<string, Card>>(new Map());
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const announcement = useSignal('');
  const menuFor = useSignal<Card | null>(null);
  const focus = useRef<Focus>({ id: null, wanted: false });
  const [, refocus] = useState(0);
  const seq = useRef(0);
  // Missing, the view names itself as NotFound does: a parent's effect runs after its child's, and would win.
  useTitle(project === 'missing' ? null : project ? `${project.name} board` : 'Board');

  const params = place.value.params;
  const filters = {
    assignee: params.get('assignee') ?? '',
    priority: params.get('priority') ?? '',
    q: params.get('q') ?? '',
  };
  const setFilter = (name: keyof typeof filters, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    const search = next.toString();
    navigate(`/projects/${encodeURIComponent(projectId)}${search ? `?${search}` : ''}`, { replace: true });
  };

  /** Ids deleted since the board began loading: a page read before the delete must not bring them back. */
  const deleted = useRef(new Set<string>());
  /** Puts tasks in (or back in) the board, unless what the board has is newer. */
  const put = useCallback((...tasks: Task[]) => {
    setCards((map) => {
      let next: Map<string, Card> | undefined;
      for (const task of tasks) {
        const had = map.get(task.id);
        if ((had && had.updatedAt > task.updatedAt) || deleted.current.has(task.id)) continue;
        next ??= new Map(map);
        next.set(task.id, { ...task, seq: had?.seq ?? ++seq.current });
      }
      return next ?? map;
    });
  }, []);
  const drop = useCallback((id: string) => {
    deleted.current.add(id);
    setCards((map) => {
      if (!map.has(id)) return map;
      const next = new Map(map);
      next.delete(id);
      return next;
    });
  }, []);

  const loading$ = useRef<AbortController | null>(null);
  const load = useCallback(async () => {
    loading$.current?.abort();
    const controller = (loading$.current = new AbortController());
    setLoading(true);
    try {
      const answer = await api<{ data: Project }>('GET', `/api/projects/${encodeURIComponent(projectId)}`, {
        signal: controller.signal,
      });
      setProject(answer.data.data);
      // The API lists in creation order, and `seq` keeps it (the board shows the newest first). Changes heard on
      // the stream meanwhile are kept where they are newer than the page read.
      seq.current = 0;
      deleted.current.clear();
      setCards(new Map());
      for await (const page of pages<Task>('/api/tasks', { projectId }, PAGE, controller.signal)) put(...page.records);
      setError(null);
    } catch (err) {
      if (controller.signal.aborted) return;
      if (err instanceof ApiError && err.status === 404) setProject('missing');
      else setError(describe(err));
    } finally {
      if (!controller.signal.aborted) setLoading(false);
    }
  }, [projectId]);
  useEffect(() => {
    void load();
    return () => loading$.current?.abort();
  }, [load]);

  useLive(projectId, {
    onReset: () => void load(),
    onEvent: ({ type, data }) => {
      if (type === 'task.created' || type === 'task.updated') put(data as unknown as Task);
      else if (type === 'task.deleted') drop(data.id);
      else if (type === 'project.updated' && data.id === projectId) setProject(data as unknown as Project);
      else if (type === 'project.deleted' && data.id === projectId) {
        deletedHere();
        setProject('missing');
      }
    },
  });

  const columns = useMemo(() => {
    const byStatus: Record<Status, Card[]> = { todo: [], in_progress: [], done: [] };
    for (const card of cards.values()) {
      if (filters.priority && card.priority !== filters.priority) continue;
      if (filters.assignee && (card.assignee ?? UNASSIGNED) !== filters.assignee) continue;
      if (filters.q && !matchesWords(card.title, filters.q)) continue;
      byStatus[card.status].push(card);
    }
    for (const list of Object.values(byStatus)) list.sort((a, b) => b.seq - a.seq);
    return byStatus;
  }, [cards, filters.priority, filters.assignee, filters.q]);

  const teamMembers = useMembers(project && project !== 'missing' ? project.teamId : null);
  const people = useMemo(() => {
    const names = new Set(teamMembers);
    for (const card of cards.values()) if (card.assignee) names.add(card.assignee);
    return [...names].sort((a, b) => a.localeCompare(b));
  }, [teamMembers, cards]);

  const cannotWrite = refusal('write');

  /** Moves a card: shown at once, stored by a `PATCH` of its status; put back, saying why, if that fails. */
  const move = async (card: Card, to: Status) => {
    if (card.status === to || cannotWrite) return;
    setCards((map) => new Map(map).set(card.id, { ...card, status: to }));
    announcement.value = `${card.title} moved to ${TASK_STATUS_LABEL[to]}`;
    try {
      const answer = await api<{ data: Task }>('PATCH', `/api/tasks/${encodeURIComponent(card.id)}`, {
        body: { status: to },
      });
      put(answer.data.data);
      setError(null);
    } catch (err) {
      setCards((map) => new Map(map).set(card.id, card));
      setError(`${card.title} could not be moved: ${describe(err)}`);
      announcement.value = `${card.title} could not be moved`;
    }
  };

  const add = async (status: Status, title: string) => {
    const answer = await api<{ data: Task }>('POST', '/api/tasks', { body: { projectId, title, status } });
    put(answer.data.data);
    announcement.value = `${answer.data.data.title} added to ${TASK_STATUS_LABEL[status]}`;
  };

  if (project === 'missing') return <NotFound what="project" />;
  const total = cards.size;
  return (
    <section class="view board-view" aria-busy={loading}>
      <ProjectHead projectId={projectId} project={project}>
        <p class="muted" aria-live="polite">
          {loading ? `Loading tasks… ${total}` : `${total} ${total === 1 ? 'task' : 'tasks'}`}
        </p>
      </ProjectHead>
      <form class="filters" role="search" aria-label="Filter the board" onSubmit={(e) => e.preventDefault()}>
        <label>
          <span>Search titles</span>
          <input
            data-shortcut="search"
            type="search"
            value={filters.q}
            maxLength={200}
            onInput={(e) => setFilter('q', e.currentTarget.value)}
          />
        </label>
        <label>
          <span>Assignee</span>
          <select value={filters.assignee} onChange={(e) => setFilter('assignee', e.currentTarget.value)}>
            <option value="">Anyone</option>
            <option value={UNASSIGNED}>Unassigned</option>
            {people.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Priority</span>
          <Choice
            value={filters.priority as Task['priority'] | ''}
            labels={PRIORITY_LABEL}
            empty="Any"
            onChange={(v) => setFilter('priority', v)}
          />
        </label>
      </form>
      <p class="hint muted" id="board-keys">
        Arrow keys go from card to card; Shift+Left and Shift+Right move a card; Enter opens it; M opens its menu; ?
        lists every shortcut.
      </p>
      <ErrorText error={error} />
      {cannotWrite && <p class="muted">{cannotWrite}: cards cannot be moved or added.</p>}
      <div class="board">
        {TASK_STATUSES.map((status, index) => (
          <Column
            key={status}
            status={status}
            cards={columns[status]}
            focus={focus.current}
            readOnly={!!cannotWrite}
            onMove={(card, to) => void move(card, to)}
            onDrop={(id, to) => {
              const card = cards.get(id);
              if (card) void move(card, to);
            }}
            onAdd={(title) => add(status, title)}
            onMenu={(card) => (menuFor.value = card)}
            neighbour={(offset) => {
              const next = TASK_STATUSES[index + offset];
              return next === undefined ? undefined : { status: next, cards: columns[next] };
            }}
            onFocusColumn={(to, at) => {
              const list = columns[to];
              const card = list[Math.min(at, list.length - 1)];
              if (card) {
                focus.current = { id: card.id, wanted: true };
                refocus((n) => n + 1);
              }
            }}
          />
        ))}
      </div>
      <p class="visually-hidden" aria-live="assertive">
        {announcement.value}
      </p>
      {menuFor.value && (
        <CardMenu
          card={cards.get(menuFor.value.id) ?? menuFor.value}
          readOnly={cannotWrite}
          onClose={() => (menuFor.value = null)}
          onMove={(to) => {
            const card = cards.get(menuFor.value!.id);
            menuFor.value = null;
            if (card) {
              focus.current = { id: card.id, wanted: true };
              void move(card, to);
            }
          }}
          onDeleted={(id) => {
            menuFor.value = null;
            drop(id);
          }}
        />
      )}
    </section>
  );
}
