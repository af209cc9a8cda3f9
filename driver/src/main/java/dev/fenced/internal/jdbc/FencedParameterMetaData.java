package dev.fenced.internal.jdbc;

import dev.fenced.internal.pg.PgStates;
import dev.fenced.internal.sql.RewritePlan;
import java.sql.ParameterMetaData;
import java.sql.SQLException;

/** Parameter metadata in the user's numbering: token parameters are not shown. */
final class FencedParameterMetaData extends DelegatingParameterMetaData {

    private final RewritePlan.Fenced plan;

    FencedParameterMetaData(ParameterMetaData meta, RewritePlan.Fenced plan) {
        super(meta);
        this.plan = plan;
    }

    private int at(int param) throws SQLException {
        int[] positions = plan.delegateIndexes(param);
        if (positions == null) {
            throw new SQLException(
                    "The parameter index is out of range: " + param + ", number of parameters: "
                            + plan.userParameterCount() + ".",
                    PgStates.INVALID_PARAMETER_VALUE);
        }
        return positions[0];
    }

    @Override
    public int getParameterCount() {
        return plan.userParameterCount();
    }

    @Override
    public int isNullable(int param) throws SQLException {
        return parameterMetaData.isNullable(at(param));
    }

    @Override
    public boolean isSigned(int param) throws SQLException {
        return parameterMetaData.isSigned(at(param));
    }

    @Override
    public int getPrecision(int param) throws SQLException {
        return parameterMetaData.getPrecision(at(param));
    }

    @Override
    public int getScale(int param) throws SQLException {
        return parameterMetaData.getScale(at(param));
    }

    @Override
    public int getParameterType(int param) throws SQLException {
        return parameterMetaData.getParameterType(at(param));
    }

    @Override
    public String getParameterTypeName(int param) throws SQLException {
        return parameterMetaData.getParameterTypeName(at(param));
    }

    @Override
    public String getParameterClassName(int param) throws SQLException {
        return parameterMetaData.getParameterClassName(at(param));
    }

    @Override
    public int getParameterMode(int param) throws SQLException {
        return parameterMetaData.getParameterMode(at(param));
    }
}
