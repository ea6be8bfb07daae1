// The shape every benchmark scenario reports: a measured value, the baseline it is compared
// with in the same run, their ratio, and the goal the ratio must meet — or, for an absolute
// goal (a latency a user feels, whatever the machine), the bound the value itself must meet.

export interface ScenarioResult {
  name: string;
  value: number;
  unit: string;
  baseline: { name: string; value: number } | null;
  /** value / baseline.value */
  ratio: number | null;
  /** e.g. "ratio <= 2.5" or "<= 60 ms p95"; null when the scenario is informational. */
  goal: string | null;
  met: boolean | null;
  note?: string;
}

export function compare(
  name: string,
  unit: string,
  value: number,
  baseline: { name: string; value: number },
  goal: { max?: number; min?: number },
): ScenarioResult {
  const ratio = value / baseline.value;
  const met = (goal.max === undefined || ratio <= goal.max) && (goal.min === undefined || ratio >= goal.min);
  const bound = (value: number): string => String(Number(value.toPrecision(3)));
  const text = [
    goal.max !== undefined ? `ratio <= ${bound(goal.max)}` : '',
    goal.min !== undefined ? `ratio >= ${bound(goal.min)}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return { name, value, unit, baseline, ratio, goal: text || null, met: text ? met : null };
}

/** A value judged against an absolute bound, e.g. `within('x', 'ms p95', 12, { max: 60 })`: "<= 60 ms p95". */
export function within(
  name: string,
  unit: string,
  value: number,
  goal: { max?: number; min?: number },
  note?: string,
): ScenarioResult {
  const met = (goal.max === undefined || value <= goal.max) && (goal.min === undefined || value >= goal.min);
  const text = [
    goal.max !== undefined ? `<= ${goal.max} ${unit}` : '',
    goal.min !== undefined ? `>= ${goal.min} ${unit}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return {
    name,
    value,
    unit,
    baseline: null,
    ratio: null,
    goal: text || null,
    met: text ? met : null,
    ...(note === undefined ? {} : { note }),
  };
}

export function skipped(name: string, unit: string, value: number, note: string): ScenarioResult {
  return { name, value, unit, baseline: null, ratio: null, goal: null, met: null, note };
}
