import type { Category, Template } from './schema.js';

/** Column sets of the board templates. */
export const BOARD_TEMPLATES: Record<Template, ReadonlyArray<{ name: string; category: Category }>> = {
  simple: [
    { name: 'To Do', category: 'todo' },
    { name: 'In Progress', category: 'progress' },
    { name: 'Done', category: 'done' },
  ],
  scrum: [
    { name: 'Backlog', category: 'todo' },
    { name: 'Selected for Development', category: 'todo' },
    { name: 'In Progress', category: 'progress' },
    { name: 'In Review', category: 'progress' },
    { name: 'Done', category: 'done' },
  ],
  bugs: [
    { name: 'Triage', category: 'todo' },
    { name: 'Confirmed', category: 'todo' },
    { name: 'Fixing', category: 'progress' },
    { name: 'Verifying', category: 'progress' },
    { name: 'Fixed', category: 'done' },
    { name: "Won't Fix", category: 'done' },
  ],
};
