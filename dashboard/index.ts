/** The live dashboard: its server (pages, JSON API, `/live` WebSocket) and the pieces it is built from. */
export { startDashboard, type Dashboard, type DashboardOptions, type LiveRunOptions } from './server/dashboard-server.ts';
export { DashboardRun } from './server/dashboard-run.ts';
export { DashboardError, type DashboardErrorCode } from './server/errors.ts';
export { EpisodeBoard, MAX_BOARD_ROWS, type BoardEvent } from './server/episode-board.ts';
export { MetricSeries, MAX_METRIC_ROWS } from './server/metric-series.ts';
export { RunDirReader, type EpisodeSummary, type LoggedEpisode } from './server/run-dir.ts';
export { replayEpisode, type ReplayedEpisode, type ReplayFrame } from './server/replay.ts';
export { checkEventServerUrl } from './server/remote-source.ts';
export { parseRunArg } from './server/run-arg.ts';
export type { LiveHubStats } from './server/live-hub.ts';
export type { BoardDiff, EpisodeRow, MetricRow, RunInfo, ServerFrame } from './server/wire.ts';
