from lab.bench.gpu_decode_scaling import parse_batched_bench

TABLE = """
main: n_kv_max = 99328, n_batch = 2048, n_ubatch = 512, flash_attn = 1, is_pp_shared = 0
|    PP |     TG |    B |   N_KV |   T_PP s | S_PP t/s |   T_TG s | S_TG t/s |      T s |    S t/s |
|-------|--------|------|--------|----------|----------|----------|----------|----------|----------|
|   256 |    128 |    1 |    384 |    0.030 |  8533.33 |    0.700 |   182.86 |    0.730 |   526.03 |
|  4096 |    128 |    8 |  33792 |    3.100 | 10570.32 |    2.100 |   487.62 |    5.200 |  6498.46 |
llama_perf_context_print: load time = 1.0 ms
"""


def test_the_rows_of_llama_batched_bench_are_read_with_their_decode_speed() -> None:
    rows = parse_batched_bench(TABLE)
    assert [(r["pp"], r["sequences"], r["n_kv"]) for r in rows] == [(256, 1, 384), (4096, 8, 33792)]
    assert rows[1]["s_tg"] == 487.62 and rows[0]["t_pp_s"] == 0.03


def test_a_run_without_a_table_gives_no_rows() -> None:
    assert parse_batched_bench("error: failed to load model\n") == []
