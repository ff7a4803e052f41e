// Every key of CometBFT v0.38's config.toml (config/config.go, the mapstructure tags of v0.38.25), by
// section ('' is the top level). chaind reads a few of them; the others are CometBFT's alone, so a
// config.toml shared with CometBFT (one home for both) loads without a warning for each of them, and
// only a key neither knows (a misspelling, most likely) is reported.

export const COMETBFT_CONFIG_KEYS: Readonly<Record<string, readonly string[]>> = {
  '': [
    'version', 'proxy_app', 'moniker', 'db_backend', 'db_dir', 'log_level', 'log_format', 'genesis_file', 'priv_validator_key_file',
    'priv_validator_state_file', 'priv_validator_laddr', 'node_key_file', 'abci', 'filter_peers', 'event_bus_buffer_capacity',
  ],
  rpc: [
    'laddr', 'cors_allowed_origins', 'cors_allowed_methods', 'cors_allowed_headers', 'grpc_laddr', 'grpc_max_open_connections', 'unsafe',
    'max_open_connections', 'max_subscription_clients', 'max_subscriptions_per_client', 'experimental_subscription_buffer_size',
    'experimental_websocket_write_buffer_size', 'experimental_close_on_slow_client', 'timeout_broadcast_tx_commit', 'max_request_batch_size',
    'max_body_bytes', 'max_header_bytes', 'tls_cert_file', 'tls_key_file', 'pprof_laddr',
  ],
  p2p: [
    'laddr', 'external_address', 'seeds', 'persistent_peers', 'addr_book_file', 'addr_book_strict', 'max_num_inbound_peers',
    'max_num_outbound_peers', 'unconditional_peer_ids', 'persistent_peers_max_dial_period', 'flush_throttle_timeout',
    'max_packet_msg_payload_size', 'send_rate', 'recv_rate', 'pex', 'seed_mode', 'private_peer_ids', 'allow_duplicate_ip',
    'handshake_timeout', 'dial_timeout', 'test_dial_fail', 'test_fuzz', 'test_fuzz_config',
  ],
  mempool: [
    'type', 'recheck', 'recheck_timeout', 'broadcast', 'wal_dir', 'size', 'max_txs_bytes', 'cache_size', 'keep-invalid-txs-in-cache',
    'max_tx_bytes', 'max_batch_bytes', 'experimental_max_gossip_connections_to_persistent_peers',
    'experimental_max_gossip_connections_to_non_persistent_peers',
  ],
  statesync: [
    'enable', 'temp_dir', 'rpc_servers', 'trust_period', 'trust_height', 'trust_hash', 'discovery_time', 'chunk_request_timeout',
    'chunk_fetchers', 'max_snapshot_chunks',
  ],
  blocksync: ['version'],
  consensus: [
    'wal_file', 'timeout_propose', 'timeout_propose_delta', 'timeout_prevote', 'timeout_prevote_delta', 'timeout_precommit',
    'timeout_precommit_delta', 'timeout_commit', 'skip_timeout_commit', 'create_empty_blocks', 'create_empty_blocks_interval',
    'peer_gossip_sleep_duration', 'peer_query_maj23_sleep_duration', 'double_sign_check_height', 'block_time_tolerance',
  ],
  storage: ['discard_abci_responses'],
  tx_index: ['indexer', 'psql-conn'],
  instrumentation: ['prometheus', 'prometheus_listen_addr', 'max_open_connections', 'namespace'],
};

/** "key" or "section.key" for each CometBFT key, as the config reader names keys. */
export const COMETBFT_KEY_PATHS: ReadonlySet<string> = new Set(
  Object.entries(COMETBFT_CONFIG_KEYS).flatMap(([section, keys]) => (section === '' ? [...keys] : [section, ...keys.map((k) => `${section}.${k}`)])),
);
