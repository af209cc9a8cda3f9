package dev.fenced.internal.spring.datasource;

/** Marks a DataSource bean fenced in place by {@link FencedDataSourcePostProcessor}, so it is never wrapped twice. */
public interface FencedDataSourceProxy {}
