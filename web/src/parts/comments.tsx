/** A task's comments: read them all, add one, edit or delete your own. Live: others' comments appear as they come. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, query } from '../api.ts';
import { useLive } from '../live.ts';
import { refusal, user } from '../session.ts';
import type { Comment } from '../types.ts';
import { ErrorText, describe } from './error.tsx';
import { when } from './time.ts';

export function Comments({ taskId, projectId }: { taskId: string; projectId: string }) {
  const [comments, setComments] = useState<Comment[] | null>(null);
  const [body, setBody] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const me = user.value?.username;
  const cannotWrite = refusal('write');

  const load = useCallback(async () => {
    try {
      const answer = await api<{ data: Comment[] }>(
        'GET',
        `/api/comments${query({ targetType: 'task', targetId: taskId })}`,
      );
      setComments(answer.data.data);
    } catch (err) {
      setError(describe(err));
    }
  }, [taskId]);
  useEffect(() => void load(), [load]);

  const upsert = (comment: Comment) =>
    setComments((list) => {
      const rest = (list ?? []).filter((c) => c.id !== comment.id);
      return list?.some((c) => c.id === comment.id)
        ? (list ?? []).map((c) => (c.id === comment.id ? comment : c))
        : [...rest, comment];
    });

  useLive(projectId, {
    onReset: () => void load(),
    onEvent: ({ type, data }) => {
      if (!type.startsWith('comment.') || data.targetId !== taskId) return;
      if (type === 'comment.deleted') setComments((list) => list && list.filter((c) => c.id !== data.id));
      else upsert(data as unknown as Comment);
    },
  });

  const add = async (event: Event) => {
    event.preventDefault();
    if (body.trim() === '') {
      setError('Write a comment first');
      return;
    }
    setBusy(true);
    try {
      const answer = await api<{ data: Comment }>('POST', '/api/comments', {
        body: { targetType: 'task', targetId: taskId, author: me, body },
      });
      upsert(answer.data.data);
      setBody('');
      setError(null);
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="comments" aria-labelledby="comments-title">
      <h2 id="comments-title">Comments {comments && <span class="count">{comments.length}</span>}</h2>
      {comments === null && !error && <p aria-busy="true">Loading comments…</p>}
      {comments?.length === 0 && <p class="muted">No comments yet.</p>}
      <ol class="comment-list">
        {comments?.map((c) => (
          <CommentItem
            key={c.id}
            comment={c}
            mine={c.author === me && !cannotWrite}
            onChanged={upsert}
            onDeleted={(id) => setComments((list) => list && list.filter((x) => x.id !== id))}
          />
        ))}
      </ol>
      {cannotWrite ? (
        <p class="muted">{cannotWrite}: you cannot comment.</p>
      ) : (
        <form class="stack" onSubmit={(e) => void add(e)} noValidate>
          <label for="new-comment">Comment</label>
          <textarea
            id="new-comment"
            rows={3}
            value={body}
            onInput={(e) => setBody(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void add(e);
            }}
          />
          <ErrorText error={error} />
          <div class="buttons">
            <button type="submit" disabled={busy}>
              Add comment
            </button>
            <span class="muted small">Ctrl+Enter adds it too</span>
          </div>
        </form>
      )}
    </section>
  );
}

function CommentItem(props: {
  comment: Comment;
  mine: boolean;
  onChanged: (c: Comment) => void;
  onDeleted: (id: string) => void;
}) {
  const { comment } = props;
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(comment.body);
  const [error, setError] = useState<string | null>(null);
  const path = `/api/comments/${encodeURIComponent(comment.id)}`;
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      const answer = await api<{ data: Comment }>('PATCH', path, { body: { body: text } });
      props.onChanged(answer.data.data);
      setEditing(false);
      setError(null);
    } catch (err) {
      setError(describe(err));
    }
  };
  const remove = async () => {
    try {
      await api('DELETE', path);
      props.onDeleted(comment.id);
    } catch (err) {
      setError(describe(err));
    }
  };
  return (
    <li class="comment">
      <p class="comment-head">
        <strong>{comment.author}</strong>{' '}
        <time dateTime={comment.createdAt} class="muted small">
          {when(comment.createdAt)}
          {comment.updatedAt !== comment.createdAt && ' (edited)'}
        </time>
      </p>
      {editing ? (
        <form class="stack" onSubmit={(e) => void save(e)} noValidate>
          <label for={`edit-${comment.id}`}>Edit your comment</label>
          <textarea
            id={`edit-${comment.id}`}
            rows={3}
            value={text}
            autoFocus
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <div class="buttons">
            <button type="submit">Save comment</button>
            <button type="button" class="quiet" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <p class="comment-body">{comment.body}</p>
      )}
      <ErrorText error={error} />
      {props.mine && !editing && (
        <div class="buttons">
          <button
            type="button"
            class="quiet small"
            onClick={() => {
              setText(comment.body);
              setEditing(true);
            }}
          >
            Edit<span class="visually-hidden"> your comment</span>
          </button>
          <button type="button" class="quiet small danger" onClick={() => void remove()}>
            Delete<span class="visually-hidden"> your comment</span>
          </button>
        </div>
      )}
    </li>
  );
}
