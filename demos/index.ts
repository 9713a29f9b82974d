/** Demonstrations (collected by actors/collect-demos.ts): read and write them as our JSON lines or AgentGym's AgentTraj. */
export { DemoSchema, DemoTurnSchema, type Demo, type DemoTurn } from './demo.ts';
export type { DemoFileFormat } from './demo-records.ts';
export { readDemos, type ReadDemosOptions } from './read-demos.ts';
export { DEMO_FORMATS, writeDemos, type WriteDemosOptions } from './write-demos.ts';
export { demoToAgentTraj } from './to-agenttraj.ts';
export { agentTrajToDemo } from './from-agenttraj.ts';
export { AgentTrajItemSchema, itemIdOf, taskOfItemId, type AgentTrajItem, type AgentTrajMessage } from './agenttraj-item.ts';
export { parseTokenRecords, TOKEN_RECORD_FORMAT, TokenRecordSchema, TokenRecordTurnSchema, type TokenRecord, type TokenRecordTurn } from './token-record.ts';
export { cutTurns, tokenRecordOf, type TokenRecordInput } from './token-record-of.ts';
export { TokenRecordingPolicy, type KeptEpisode } from './token-recording-policy.ts';
export { TokenRecordStream, writeTokenRecords } from './write-token-records.ts';
